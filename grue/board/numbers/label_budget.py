"""The label-budget curve of learned rewards (Ziegler et al. 2019's mock-labeler study, docs/learned_rewards.md).

Runs trained against a reward model learned from comparisons (`reward=learned`, results.json's
`reward_learning`) give one point each: the task's first metric on the board's split, the oracle the
mock labeler stood in for, against the comparisons the run used. Points are averaged over seeds per
(profile, algorithm, label schedule, labels). The levels the curve is read against are the runs
without a learned reward on the same task and profile: zero-shot, and RL directly on the oracle.
Both carry the RL phase's mean KL per token and per episode (results.json's `training_kl`, mean over
seeds; NaN for zero-shot), so the arms can be read as reward against KL (Ziegler compares at
controlled KL): a learned reward standardised to std 1 meets the KL coefficient at a larger scale than
a probability oracle does, and drifts further.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import pandas as pd

from grue.board.numbers.collect import Run
from grue.board.task_info import task_metrics

POINT_COLUMNS = ["profile", "algo", "schedule", "labels", "n", "mean", "std", "rm_accuracy", "kl", "kl_per_episode"]
LEVEL_COLUMNS = ["profile", "algo", "reward", "setting_label", "n", "mean", "std", "kl", "kl_per_episode"]


def oracle_metric(task: str) -> str | None:
    """The metric the curve plots: the task's first task metric (IMDB: sentiment)."""
    metrics = task_metrics(task)
    return metrics[0] if metrics else None


def oracle_value(run: Run, split: str, metric: str) -> float:
    """The run's `metric` on `split` from results.json (NaN when absent or not finite)."""
    value = run.doc.get("metrics", {}).get(split, {}).get(metric)
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else math.nan


def reward_learning_record(run: Run) -> dict[str, Any] | None:
    """results.json's `reward_learning` of a run on a learned reward that used labels (None otherwise)."""
    learning = run.doc.get("reward_learning")
    return learning if isinstance(learning, dict) and learning.get("labels_used") else None


def _kl(run: Run) -> dict[str, float]:
    """The run's mean KL over its RL iterations, per token and per episode (NaN without RL)."""
    kl = run.doc.get("training_kl")
    kl = kl if isinstance(kl, dict) else {}
    return {"kl": float(kl.get("mean_per_token", math.nan)), "kl_per_episode": float(kl.get("mean_per_episode", math.nan))}


def _mean_kl(group: pd.DataFrame) -> dict[str, float]:
    return {key: float(pd.Series(group[key], dtype=float).mean()) for key in ("kl", "kl_per_episode")}


def _spread(values: pd.Series) -> tuple[int, float, float]:
    values = values.dropna()
    return len(values), float(values.mean()) if len(values) else math.nan, float(values.std()) if len(values) > 1 else math.nan


def budget_points(runs: Sequence[Run], task: str, split: str) -> pd.DataFrame:
    """One row per (profile, algo, schedule, labels): oracle metric mean/std over seeds and the reward
    model's held-out accuracy (last round), mean over seeds."""
    metric = oracle_metric(task)
    rows = []
    for run in runs:
        learning = reward_learning_record(run)
        if run.task != task or learning is None or metric is None:
            continue
        rounds = learning.get("rounds") or [{}]
        schedule = (run.doc.get("config", {}).get("reward", {}) or {}).get("schedule") or "offline"
        rows.append({"profile": run.profile, "algo": run.algo, "schedule": schedule,
                     "labels": int(learning["labels_used"]), "value": oracle_value(run, split, metric),
                     "rm_accuracy": rounds[-1].get("heldout_accuracy", math.nan), **_kl(run)})
    if not rows:
        return pd.DataFrame(columns=POINT_COLUMNS)
    frame = pd.DataFrame(rows)
    out = []
    for key, group in frame.groupby(["profile", "algo", "schedule", "labels"], sort=True):
        n, mean, std = _spread(group["value"])
        out.append({**dict(zip(["profile", "algo", "schedule", "labels"], key)), "n": n, "mean": mean, "std": std,
                    "rm_accuracy": float(pd.Series(group["rm_accuracy"], dtype=float).mean()), **_mean_kl(group)})
    return pd.DataFrame(out, columns=POINT_COLUMNS)


def reference_levels(runs: Sequence[Run], task: str, split: str, profiles: Sequence[str]) -> pd.DataFrame:
    """The same metric for the task's runs without a learned reward in `profiles`, per board row."""
    metric = oracle_metric(task)
    rows = [{"profile": r.profile, "algo": r.algo, "reward": r.reward, "setting_label": r.setting_label,
             "value": oracle_value(r, split, metric), **_kl(r)}
            for r in runs if r.task == task and r.profile in profiles and reward_learning_record(r) is None and r.reward != "learned"]
    if not rows or metric is None:
        return pd.DataFrame(columns=LEVEL_COLUMNS)
    out = []
    for key, group in pd.DataFrame(rows).groupby(["profile", "algo", "reward", "setting_label"], sort=True):
        n, mean, std = _spread(group["value"])
        out.append({**dict(zip(["profile", "algo", "reward", "setting_label"], key)), "n": n, "mean": mean, "std": std,
                    **_mean_kl(group)})
    return pd.DataFrame(out, columns=LEVEL_COLUMNS)
