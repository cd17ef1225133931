"""The label-budget study's arms as oracle reward against KL (Ziegler et al. 2019 compare at controlled KL).

A reward standardised to std 1 meets the KL coefficient at a larger scale than a probability oracle does
and drifts further from the reference, so two arms' oracle scores compare only beside their KL. Every
arm of a task and profile that has runs on a learned reward gets one point:
- RL on a learned reward, per (algorithm, label schedule, labels used): offline, batched, online;
- every other run of the task and profile, per board row (algorithm, reward, setting): RL on the oracle
  itself (e.g. `sentiment`, and `sentiment_normalised` at the learned reward's scale), and zero-shot.

x: the KL per episode at the end of RL, in nats — results.json's `training_kl.final_per_episode`, the
per-token log-ratio to the reference summed over an episode's generated tokens, averaged over the last
iteration's episodes. The last iteration, not the mean over iterations, because the evaluated policy is
the last one (the mean over iterations, about half of it for a KL that grows steadily, is in the table).
Zero-shot is the reference itself: KL 0 by definition. y: the oracle metric on the board's split.
Both are means over seeds (± std over seeds). A run with RL but no `training_kl` (written before it was
recorded) leaves its arm's KL missing: counted in `kl_seeds`, NaN when no seed of the arm has it.
"""
from __future__ import annotations

import math
from typing import Sequence

import pandas as pd

from grue.board.numbers.collect import Run
from grue.board.numbers.label_budget import oracle_metric, oracle_value, reward_learning_record
from grue.board.task_info import algo_label

ARM_COLUMNS = ["profile", "kind", "algo", "reward", "setting_label", "schedule", "labels", "n", "mean", "std",
               "kl_seeds", "kl_episode", "kl_episode_std", "kl_episode_mean", "kl_token"]
KL_KEYS = {"kl_episode": "final_per_episode", "kl_episode_mean": "mean_per_episode", "kl_token": "final_per_token"}
KINDS = ("zero_shot", "oracle", "learned")  # the order arms are listed in


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else math.nan


def run_kl(run: Run) -> dict[str, float]:
    """The run's KL in each of KL_KEYS' units: 0 for zero-shot (the reference), NaN where not recorded."""
    if run.algo == "zero_shot":
        return {key: 0.0 for key in KL_KEYS}
    record = run.doc.get("training_kl")
    record = record if isinstance(record, dict) else {}
    return {key: _number(record.get(name)) for key, name in KL_KEYS.items()}


def _arm(run: Run) -> dict[str, object]:
    learning = reward_learning_record(run)
    if learning is not None:
        schedule = (run.doc.get("config", {}).get("reward", {}) or {}).get("schedule") or "offline"
        return {"kind": "learned", "reward": "learned", "setting_label": "", "schedule": schedule,
                "labels": int(learning["labels_used"])}
    kind = "zero_shot" if run.algo == "zero_shot" else "oracle"
    return {"kind": kind, "reward": run.reward, "setting_label": run.setting_label, "schedule": "", "labels": 0}


def _mean_std(values: pd.Series) -> tuple[int, float, float]:
    values = pd.Series(values, dtype=float).dropna()
    n = len(values)
    return n, float(values.mean()) if n else math.nan, float(values.std()) if n > 1 else math.nan


def reward_kl_arms(runs: Sequence[Run], task: str, split: str) -> pd.DataFrame:
    """One row per arm (ARM_COLUMNS) in the profiles where `task` has runs on a learned reward; empty when
    it has none. `n` counts seeds with the oracle metric, `kl_seeds` those with a KL."""
    metric = oracle_metric(task)
    profiles = {r.profile for r in runs if r.task == task and reward_learning_record(r) is not None}
    if metric is None or not profiles:
        return pd.DataFrame(columns=ARM_COLUMNS)
    rows = [{"profile": r.profile, "algo": r.algo, **_arm(r), "value": oracle_value(r, split, metric), **run_kl(r)}
            for r in runs if r.task == task and r.profile in profiles
            and (reward_learning_record(r) is not None or r.reward != "learned")]
    keys = ["profile", "kind", "algo", "reward", "setting_label", "schedule", "labels"]
    out = []
    for key, group in pd.DataFrame(rows).groupby(keys, sort=False):
        n, mean, std = _mean_std(group["value"])
        kl_seeds, kl_episode, kl_episode_std = _mean_std(group["kl_episode"])
        out.append({**dict(zip(keys, key)), "n": n, "mean": mean, "std": std, "kl_seeds": kl_seeds,
                    "kl_episode": kl_episode, "kl_episode_std": kl_episode_std,
                    "kl_episode_mean": _mean_std(group["kl_episode_mean"])[1], "kl_token": _mean_std(group["kl_token"])[1]})
    frame = pd.DataFrame(out, columns=ARM_COLUMNS)
    order = frame["kind"].map(KINDS.index)
    return (frame.assign(_order=order).sort_values(["profile", "_order", "algo", "reward", "setting_label", "schedule",
                                                    "labels"]).drop(columns="_order").reset_index(drop=True))


def arm_label(arm: pd.Series) -> str:
    """How the reward-vs-KL figure and table name an arm (one row of reward_kl_arms)."""
    if arm["kind"] == "learned":
        return f"{algo_label(arm['algo'])} on learned reward ({arm['schedule']}, {int(arm['labels'])} labels)"
    name = algo_label(arm["algo"]) + (f" on the oracle ({arm['reward']})" if arm["reward"] else "")
    return name + (f" [{arm['setting_label']}]" if arm["setting_label"] else "")
