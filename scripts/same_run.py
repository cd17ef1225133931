"""Check that two run directories computed the same thing: equal metrics in results.json and equal
train/eval log lines apart from wall-clock timings. Used to show a refactor changed no numbers:

    # the same seeded command on the old and the new tree (e.g. two git worktrees), then
    python scripts/same_run.py OLD_RUNS/imdb-mini-nlpo-seed1-<hash> NEW_RUNS/imdb-mini-nlpo-seed1-<hash>

The runs behind the "one place per concept" issue's note: `grue run task=imdb profile=mini seed=1
ppo.total_steps=1536 data.max_val=32 data.max_test=32 threads=1` with `algo=nlpo
nlpo.min_tokens_to_keep=10 nlpo.update_every=1`, `algo=ppo model.value_model=separate`, and
`algo=supervised_ppo data.max_train=64`.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

TIMINGS = ("rollout_s", "update_s", "seconds", "wall_time_s", "elapsed_s")


def _log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [{k: v for k, v in json.loads(line).items() if k not in TIMINGS} for line in path.read_text().splitlines()]


def differences(a: Path, b: Path) -> list[str]:
    out = []
    metrics_a = json.loads((a / "results.json").read_text())["metrics"]
    metrics_b = json.loads((b / "results.json").read_text())["metrics"]
    if metrics_a != metrics_b:
        out.append(f"metrics differ: {metrics_a} vs {metrics_b}")
    for name in ("train.jsonl", "eval.jsonl"):
        if _log(a / "logs" / name) != _log(b / "logs" / name):
            out.append(f"logs/{name} differs beyond timings")
    return out


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: python scripts/same_run.py RUN_DIR_A RUN_DIR_B", file=sys.stderr)
        return 2
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    for run in (a, b):
        if not (run / "results.json").is_file():
            print(f"error: {run} has no results.json (not a finished run directory)", file=sys.stderr)
            return 2
    problems = differences(a, b)
    for line in problems:
        print(line)
    if not problems:
        test = json.loads((a / "results.json").read_text())["metrics"]["test"]
        print(f"same: metrics and logs agree (test: {', '.join(f'{k} {v:.4f}' for k, v in sorted(test.items()))})")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
