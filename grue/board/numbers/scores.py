"""GRUE scores per leaderboard entry: task-preference score and naturalness score on each split.

An entry is a row of the per-task tables (source, profile, task, algo, reward, init model, setting). Its
task score is the mean of its normalised Table 1 task metrics, its naturalness score the mean of
its normalised naturalness metrics (metric_info), and its score the mean of the two. The same
fitted transforms are applied to every seed, so the tests in stats.py compare exactly the
quantity the board shows.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.numbers.aggregate import VARIANT_KEYS
from grue.board.task_info import naturalness_metrics, task_metrics
from grue.board.numbers.normalise import PoolFit, anchoring, fit_pool, ranked
from grue.board.submit.shown import flags

ENTRY_KEYS: list[str] = ["source", "profile", "task", "algo"] + VARIANT_KEYS
POOL_KEYS: list[str] = ["source", "profile", "task", "split"]
SCORE_COLUMNS: list[str] = ["task_score", "naturalness_score", "score"]


def _mean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else math.nan


def _scores(task: str, normalised: dict[str, float]) -> dict[str, float]:
    task_part = _mean([normalised[m] for m in task_metrics(task) if m in normalised])
    nat_part = _mean([normalised[m] for m in naturalness_metrics(task) if m in normalised])
    return {"task_score": task_part, "naturalness_score": nat_part, "score": _mean([task_part, nat_part])}


def fit_pools(frame: pd.DataFrame, mode: str = "fixed") -> dict[tuple, PoolFit]:
    """One fit per pool of `frame` (aggregate rows with a `source` column)."""
    fits = {}
    for pool, group in frame.groupby(POOL_KEYS, sort=True):
        group = anchoring(group)  # values taken as reported fit nothing (normalise.py)
        means: dict[tuple, dict[str, float]] = {}
        for row in group.itertuples(index=False):
            means.setdefault((row.algo, row.reward, row.init_model, row.setting), {})[row.metric] = float(row.mean)
        directions = group.drop_duplicates("metric").set_index("metric")["higher_is_better"].to_dict()
        zero = group[group["algo"] == "zero_shot"].groupby("metric")["mean"].min().to_dict()
        fits[pool] = fit_pool(means, directions, mode, anchors=zero)
    return fits


def entry_scores(frame: pd.DataFrame, fits: dict[tuple, PoolFit]) -> pd.DataFrame:
    """Scores of every entry and split from its metric means, with the metrics that fed them."""
    rows = []
    for key, group in frame.groupby(ENTRY_KEYS + ["split"], sort=True):
        labels = dict(zip(ENTRY_KEYS + ["split"], key))
        fit = fits[tuple(labels[k] for k in POOL_KEYS)]
        means = dict(zip(group["metric"], group["mean"].astype(float)))
        reported = set(group.loc[group["reported"].fillna(0).astype(bool), "metric"]) if "reported" in group else set()
        normalised = {m: fit(m, v) for m, v in ranked(means, reported).items()}
        wanted = task_metrics(labels["task"]) + naturalness_metrics(labels["task"])
        missing = [m for m in wanted if not math.isfinite(normalised.get(m, math.nan))]
        rows.append({**labels, **_scores(labels["task"], normalised), "n": int(group["n"].fillna(0).max()),
                     "missing_metrics": ",".join(missing)})
    return pd.DataFrame(rows, columns=ENTRY_KEYS + ["split"] + SCORE_COLUMNS + ["n", "missing_metrics"])


def seed_scores(seeds: pd.DataFrame, fits: dict[tuple, PoolFit], source: str = "runs") -> pd.DataFrame:
    """Per-seed scores of our runs, normalised with their pool's fit (fitted on the means)."""
    rows = []
    keys = ["profile", "task", "algo"] + VARIANT_KEYS + ["seed", "split"]
    for key, group in seeds.groupby(keys, sort=True):
        labels = dict(zip(keys, key))
        fit = fits.get((source, labels["profile"], labels["task"], labels["split"]))
        if fit is None:
            continue
        reported = set(group.loc[flags(group["reported"]), "metric"]) if "reported" in group else set()
        normalised = {m: fit(m, float(v)) for m, v in ranked(dict(zip(group["metric"], group["value"])), reported).items()}
        rows.append({"source": source, **labels, **_scores(labels["task"], normalised)})
    return pd.DataFrame(rows, columns=ENTRY_KEYS + ["seed", "split"] + SCORE_COLUMNS)
