"""The critic's wall-time overhead, read back from logs/train.jsonl (the paper reports 2.3x for DRLC).

Per iteration: the iteration's wall time (rollout_s + update_s, the critic inside the rollout) over the
same time without the critic. Per run: the same ratio on the sums, i.e. how much longer training took
than it would have without asking the critic (evaluation time is left out on both sides).
"""
from __future__ import annotations

from typing import Iterable, Mapping


def iteration_overhead(row: Mapping[str, float]) -> float:
    wall = row["rollout_s"] + row["update_s"]
    return wall / max(wall - row.get("critic/wall_s", 0.0), 1e-9)


def run_overhead(rows: Iterable[Mapping[str, float]]) -> dict[str, float]:
    rows = [r for r in rows if "rollout_s" in r]
    wall = sum(r["rollout_s"] + r["update_s"] for r in rows)
    critic = sum(r.get("critic/wall_s", 0.0) for r in rows)
    return {"iterations": len(rows), "train_s": wall, "critic_s": critic,
            "ratio": wall / max(wall - critic, 1e-9)}
