"""A run's wall time, estimated before it starts from the finished runs of the same setting beside it.

For each finished run in `output_dir` of the same task, profile, algorithm and policy model, its
results.json says how long it took (`wall_time_s`), how much of that was training (`cost.train_seconds`)
and how many tokens training generated (`cost.train_generated_tokens`, docs/results_schema.md). An RL
run's training time grows with its token budget (`ppo.total_steps`), so a record's training seconds are
scaled by this run's budget over the record's tokens; the rest (loading, evaluations, checkpoints) is taken
as it was. Other algorithms' records are taken as they are. The estimate is the median over the records,
with their range as its uncertainty. What it cannot see: another job on the same cores (which stretches
every phase), a different `threads=`, a different batch size or evaluation size; a run with no record
beside it gets no estimate, and its progress line estimates the time left once training starts.
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Estimate:
    seconds: float   # the median over the records
    low: float
    high: float
    records: int
    scaled: bool     # training seconds scaled to this run's token budget


def _finished(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # a record half-written or not ours: no evidence either way
    if not isinstance(doc, dict) or doc.get("status") != "complete" or not isinstance(doc.get("wall_time_s"), (int, float)):
        return None
    return doc


def _policy(doc: dict[str, Any]) -> Any:
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    return (config.get("model") or {}).get("policy") if isinstance(config.get("model"), dict) else None


def records(cfg: Any) -> list[dict[str, Any]]:
    """The finished runs of this task, profile, algorithm and policy model in the run's output_dir."""
    root = Path(str(cfg.output_dir))
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.glob(f"{cfg.task}-{cfg.profile}-{cfg.algo}-seed*/results.json")):
        doc = _finished(path)
        if doc is not None and doc.get("task") == cfg.task and doc.get("algo") == cfg.algo \
                and _policy(doc) in (None, cfg.model.policy):
            found.append(doc)
    return found


def token_budget(cfg: Any) -> int | None:
    """The generated-token budget of an RL run (ppo.total_steps); None for other algorithms."""
    from omegaconf import OmegaConf

    from grue.train.registry import get_algorithm

    if get_algorithm(cfg.algo).trains != "rl":
        return None
    budget = OmegaConf.select(cfg, "ppo.total_steps")
    return int(budget) if budget else None


def projected(doc: dict[str, Any], budget: int | None) -> tuple[float, bool]:
    """(this run's seconds as the record `doc` projects them, whether its training was scaled)."""
    wall = float(doc["wall_time_s"])
    cost = doc.get("cost") if isinstance(doc.get("cost"), dict) else {}
    seconds, tokens = cost.get("train_seconds"), cost.get("train_generated_tokens")
    if budget and isinstance(seconds, (int, float)) and isinstance(tokens, (int, float)) and tokens > 0:
        return wall - seconds + seconds * budget / tokens, True
    return wall, False


def estimate(cfg: Any) -> Estimate | None:
    found = records(cfg)
    if not found:
        return None
    budget = token_budget(cfg)
    projections = [projected(doc, budget) for doc in found]
    values = [seconds for seconds, _ in projections]
    return Estimate(statistics.median(values), min(values), max(values), len(values),
                    all(scaled for _, scaled in projections))


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"


def estimate_line(cfg: Any) -> str:
    """The start-up line: the estimate and how it was made, or why there is none."""
    found = estimate(cfg)
    setting = f"{cfg.task} {cfg.profile} {cfg.algo}"
    if found is None:
        return (f"time: no finished {setting} run in {cfg.output_dir}/ to estimate from; the progress line "
                "estimates the time left once training starts")
    spread = "" if found.records == 1 else f" (range {_clock(found.low)}-{_clock(found.high)})"
    scaled = ", training scaled to this run's token budget" if found.scaled else ""
    return (f"time: about {_clock(found.seconds)} in all{spread}, from {found.records} finished {setting} run(s) in "
            f"{cfg.output_dir}/{scaled}; other jobs on these cores stretch it")
