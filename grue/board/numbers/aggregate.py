"""Seeds to leaderboard rows: mean, standard deviation, seed count and a t-based 95% CI.

Everything downstream (tables, scores, tests, site) starts from the two frames built here:
the long per-seed frame (one row per run, split and metric) and its aggregate (one row per
leaderboard row, split and metric). Profiles and settings are part of the row key, so a mini run
and a paper run, or two values of `kl.target`, can never share a mean.
"""
from __future__ import annotations

import math

import pandas as pd
from scipy import stats

from grue.board.numbers.collect import Run
from grue.board.metric_info import higher_is_better

# What sets apart the entries of one algorithm on one task: the optimised reward, the initial model and
# the setting (the config without the seed; `setting_label` names the keys that differ, see setting.py).
VARIANT_KEYS: list[str] = ["reward", "init_model", "setting", "setting_label"]
ROW_KEYS: list[str] = ["task", "algo", "reward", "init_model", "profile", "setting", "setting_label"]
SEED_COLUMNS: list[str] = ROW_KEYS + ["seed", "split", "metric", "value", "higher_is_better", "n_samples", "run_dir",
                                    "verified"]
AGG_COLUMNS: list[str] = ROW_KEYS + ["split", "metric", "higher_is_better", "n", "mean", "std", "sem",
                                     "ci_low", "ci_high", "seeds", "n_samples", "verified"]
CONFIDENCE = 0.95


def seed_frame(runs: list[Run]) -> pd.DataFrame:
    """One row per (run, split, metric), with the direction each run declared."""
    rows = []
    for run in runs:
        declared = run.higher_is_better
        labels = dict(zip(ROW_KEYS, run.key))
        for split in run.doc["metrics"]:
            for metric, value in run.metrics(split).items():
                rows.append({
                    **labels, "seed": run.seed, "split": split, "metric": metric,
                    "value": value, "higher_is_better": higher_is_better(metric, declared),
                    "n_samples": run.n_samples(split), "run_dir": str(run.path), "verified": run.verified,
                })
    return pd.DataFrame(rows, columns=SEED_COLUMNS)


def t_interval(mean: float, std: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Student-t interval for a mean of n seeds; undefined (NaN) below two seeds."""
    if n < 2 or not math.isfinite(std):
        return (math.nan, math.nan)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)
    return (mean - half, mean + half)


def _summarise(values: pd.Series) -> dict[str, float]:
    n = int(values.size)
    mean = float(values.mean())
    std = float(values.std(ddof=1)) if n > 1 else math.nan
    low, high = t_interval(mean, std, n)
    return {"n": n, "mean": mean, "std": std, "sem": std / math.sqrt(n) if n > 1 else math.nan,
            "ci_low": low, "ci_high": high}


def aggregate(seeds: pd.DataFrame) -> pd.DataFrame:
    """Mean, sample std (ddof=1), n, SEM and 95% t-interval per row, split and metric."""
    if seeds.empty:
        return pd.DataFrame(columns=AGG_COLUMNS)
    out = []
    for key, group in seeds.groupby(ROW_KEYS + ["split", "metric"], sort=True):
        row = dict(zip(ROW_KEYS + ["split", "metric"], key))
        # A metric's direction is the same across seeds unless runs disagree; the majority wins.
        row["higher_is_better"] = bool(group["higher_is_better"].mean() >= 0.5)
        row.update(_summarise(group["value"]))
        row["seeds"] = ",".join(str(s) for s in sorted(group["seed"]))
        sizes = set(group["n_samples"].dropna())
        # Corpus-size statistics (unique n-gram counts) depend on how many samples were scored.
        row["n_samples"] = float(sizes.pop()) if len(sizes) == 1 else math.nan
        # Seeds a board verified (grue leaderboard add re-scored their predictions): the tables' Verified mark.
        row["verified"] = int(group["verified"].sum()) if "verified" in group else 0
        out.append(row)
    return pd.DataFrame(out, columns=AGG_COLUMNS)


def report_split(agg: pd.DataFrame, task: str, preferred: str = "test") -> str:
    """The split a task's table reports: `preferred` when any run has it, else validation."""
    splits = set(agg.loc[agg["task"] == task, "split"])
    return preferred if preferred in splits or not splits else sorted(splits)[-1]
