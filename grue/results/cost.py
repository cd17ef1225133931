"""What a run spent, from its own logs: results.json's `cost` (docs/results_schema.md).

Read from the run directory's logs rather than timed by the process that writes results.json, so a run
resumed after a kill counts every training step once (the logs are rewound to the checkpoint it resumes
from), and a results file re-scored from saved predictions keeps its cost.
- `train_generated_tokens`: tokens the policy generated while training (the RL rollouts' `tokens`); 0 for
  algorithms that generate nothing to train (zero-shot, supervised, DPO, best-of-n).
- `train_seconds`: the training steps' own seconds (an RL iteration's rollout_s + update_s, a supervised
  epoch's or a DPO step's `seconds`); evaluations and checkpoints between them are not training.
- `eval_generated_tokens`: per split, tokens sampled to evaluate it, where the algorithm's decoding
  reports them (best-of-n: n samples per prompt); absent otherwise.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from grue.storage.run_layout import eval_log, read_jsonl, train_log


def _seconds(row: dict[str, Any]) -> float:
    if "seconds" in row:
        return float(row["seconds"])
    return float(row.get("rollout_s", 0.0)) + float(row.get("update_s", 0.0))


def cost_fields(run_dir: Path) -> dict[str, Any]:
    """{"cost": {...}} for results.json, from `logs/train.jsonl` and the final lines of `logs/eval.jsonl`."""
    train = read_jsonl(train_log(run_dir))
    cost: dict[str, Any] = {"train_generated_tokens": int(sum(int(r.get("tokens", 0)) for r in train)),
                            "train_seconds": round(sum(_seconds(r) for r in train), 1)}
    sampled = {r["split"]: int(r["generated_tokens"]) for r in read_jsonl(eval_log(run_dir))
               if r.get("final") and r.get("generated_tokens") is not None}
    if sampled:
        cost["eval_generated_tokens"] = sampled
    return {"cost": cost}
