"""The overall board (the paper's Figure 2 as a table) and HELM's mean win rate.

Rows are algorithms within one source and profile; columns are each task's task-preference and
naturalness scores of the entry chosen for that task (selection.py). The GRUE score is the mean
over the covered tasks of the per-task score (itself the mean of the two). A row says how many of
GRUE's seven tasks it covers (and over how many its naturalness averages, when a naturalness metric
was unavailable), and rows covering more tasks rank first: a mean over one task never outranks a
mean over seven. The mean win rate follows HELM:
for every (task, Table 1 metric) column, the share of the pool's other rows this row beats on the
raw metric (direction-aware, ties count half), averaged over the columns the row has; it needs no
normalisation at all, which makes it a check on the normalised score.

Only GRUE's seven tasks enter it: a task from a user's task file or a plugin has its own table on the
board, but no part in the GRUE score, the win rate or the overall rows (`outside_grue` names them, so
the board can say so).

Only standard rows rank: an entry a board labelled non-standard or degenerate (`grue leaderboard add`,
grue/board/submit/claims.py) stays in its task's table with its label, out of the overall board
(`headline`), and a value taken as reported wins no column of the win rate. Each row also says on how
many of its tasks every seed was verified by the board (`verified_seeds`; "Verified" in views.py), so a
reader of the headline sees which scores the board checked and which are a runs folder's word.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.numbers.aggregate import VARIANT_KEYS, t_interval
from grue.board.task_info import grue_tasks, naturalness_metrics, task_metrics
from grue.board.numbers.normalise import anchoring
from grue.board.numbers.selection import SELECT_KEYS
from grue.board.submit.shown import flags

ROW_KEYS: list[str] = ["source", "profile", "algo"]


def outside_grue(tasks: pd.Series) -> list[str]:
    """The tasks present that are not GRUE tasks (user or plugin tasks): kept out of the overall board."""
    return sorted(set(tasks) - set(grue_tasks()))


def raw_values(frame: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    """Raw Table 1 metric means of the chosen entries (an average of candidates averages the means)."""
    grue_set = set(grue_tasks())
    frame = anchoring(frame)  # a value taken as reported wins no column (normalise.py)
    wanted = frame[pd.Series([t in grue_set and m in task_metrics(t) + naturalness_metrics(t)
                              for t, m in zip(frame["task"], frame["metric"])], index=frame.index, dtype=bool)]
    keys = SELECT_KEYS + ["split"]
    if chosen["reward"].str.startswith("avg(").any():
        merged = wanted.merge(chosen[keys].drop_duplicates(), on=keys, how="inner")
    else:
        merged = wanted.merge(chosen[keys + VARIANT_KEYS], on=keys + VARIANT_KEYS, how="inner")
    return merged.groupby(keys + ["metric"], sort=True).agg(mean=("mean", "mean"),
                                                             higher_is_better=("higher_is_better", "first")).reset_index()


def win_rates(raw: pd.DataFrame) -> dict[tuple, tuple[float, int]]:
    """Mean win rate and number of columns per (source, profile, algo)."""
    shares: dict[tuple, list[float]] = {}
    for (source, profile, _task, _metric), col in raw.groupby(["source", "profile", "task", "metric"], sort=True):
        if len(col) < 2:
            continue
        higher = bool(col["higher_is_better"].iloc[0])
        values = list(zip(col["algo"], col["mean"].astype(float)))
        for algo, x in values:
            beaten = sum(1.0 if (x > v if higher else x < v) else 0.5 if x == v else 0.0
                         for other, v in values if other != algo)
            shares.setdefault((source, profile, algo), []).append(beaten / (len(values) - 1))
    return {k: (sum(v) / len(v), len(v)) for k, v in shares.items()}


def _mean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else math.nan


ENTRY_KEYS: list[str] = ["source", "task", "algo", "reward", "init_model", "profile", "setting", "split"]


def verified_seeds(chosen: pd.DataFrame, agg: pd.DataFrame) -> pd.Series:
    """Per chosen entry, how many of its seeds the board verified: the fewest over the entry's metric rows
    (verification is per run, so its rows agree; the fewest is the safe reading if they do not). 0 where
    the aggregate frame says nothing (the paper's rows, an averaged entry under rewards=average)."""
    keys = [k for k in ENTRY_KEYS if k in chosen and k in agg]
    if chosen.empty or "verified" not in agg or not keys:
        return pd.Series(0, index=chosen.index, dtype=int)
    counts = agg.assign(verified=agg["verified"].fillna(0)).groupby(keys, dropna=False)["verified"].min()
    found = [int(counts.get(tuple(row), 0)) for row in chosen[keys].itertuples(index=False)]
    return pd.Series(found, index=chosen.index, dtype=int)


def overall_board(chosen: pd.DataFrame, raw: pd.DataFrame, agg: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (source, profile, algo) with per-task scores, overall scores, win rate and, from `agg`,
    the tasks whose every seed the board verified (`verified_tasks`) or some of whose seeds it did
    (`partly_verified_tasks`)."""
    rates = win_rates(raw)
    rows = []
    chosen = chosen[chosen["task"].isin(grue_tasks())]
    if agg is not None:
        chosen = chosen.assign(verified_seeds=verified_seeds(chosen, agg))
    for key, group in chosen.groupby(ROW_KEYS, sort=True):
        row = dict(zip(ROW_KEYS, key))
        by_task = group.set_index("task")
        for task in grue_tasks():
            present = task in by_task.index
            row[f"{task}:task"] = float(by_task.loc[task, "task_score"]) if present else math.nan
            row[f"{task}:naturalness"] = float(by_task.loc[task, "naturalness_score"]) if present else math.nan
            row[f"{task}:reward"] = str(by_task.loc[task, "reward"]) if present else ""
        row["task_score"] = _mean(list(group["task_score"]))
        row["naturalness_score"] = _mean(list(group["naturalness_score"]))
        row["grue_score"] = _mean(list(group["score"]))
        row["tasks"] = int(group["task"].nunique())
        row["naturalness_tasks"] = int(group.loc[group["naturalness_score"].notna(), "task"].nunique())
        row["tasks_in_grue"] = len(grue_tasks())
        row["mean_win_rate"], row["win_columns"] = rates.get(key, (math.nan, 0))
        checked = group["verified_seeds"] if "verified_seeds" in group else pd.Series(0, index=group.index)
        row["verified_tasks"] = int(((checked > 0) & (checked >= group["n"])).sum())
        row["partly_verified_tasks"] = int(((checked > 0) & (checked < group["n"])).sum())
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=ROW_KEYS + ["task_score", "naturalness_score", "grue_score", "tasks",
                                                "naturalness_tasks", "tasks_in_grue", "mean_win_rate", "win_columns",
                                                "verified_tasks", "partly_verified_tasks"])
    return frame.sort_values(["source", "profile", "tasks", "grue_score"], ascending=[False, True, False, False],
                             na_position="last").reset_index(drop=True)


def score_intervals(picked: pd.DataFrame) -> dict[tuple, tuple[int, float, float]]:
    """Seed count and 95% t-interval of each chosen entry's per-seed score.

    Keyed by (source, profile, algo, task, measure) with measure "task" or "naturalness", the overall
    board's per-task columns; the interval is over the per-seed scores (normalised with the pool's fit).
    """
    out = {}
    for (source, profile, algo, task), group in picked.groupby(["source", "profile", "algo", "task"], sort=True):
        for measure, column in (("task", "task_score"), ("naturalness", "naturalness_score")):
            values = group[column].dropna()
            if values.empty:
                continue
            std = float(values.std(ddof=1)) if len(values) > 1 else math.nan
            out[(source, profile, algo, task, measure)] = (len(values), *t_interval(float(values.mean()), std, len(values)))
    return out


def headline(chosen: pd.DataFrame, agg: pd.DataFrame) -> pd.DataFrame:
    """The chosen entries that may rank: those none of whose seeds a board labelled off the headline
    (non-standard settings or degenerate outputs; submit/shown.py)."""
    if "off_headline" not in agg or chosen.empty:
        return chosen
    averaged = "reward" in chosen and chosen["reward"].astype(str).str.startswith("avg(").any()
    # an average over candidates (rewards=average) includes the flagged one: the whole entry stays out
    keys = [k for k in SELECT_KEYS + ([] if averaged else VARIANT_KEYS) if k in agg and k in chosen]
    flagged = agg[flags(agg["off_headline"])]
    if flagged.empty:
        return chosen
    out = {tuple(row) for row in flagged[keys].drop_duplicates().itertuples(index=False)}
    keep = [tuple(row) not in out for row in chosen[keys].itertuples(index=False)]
    return chosen[pd.Series(keep, index=chosen.index, dtype=bool)]
