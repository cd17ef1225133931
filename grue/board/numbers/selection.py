"""Choosing one entry per algorithm and task, by validation score, as the paper does.

A task may hold several entries for one algorithm: one per reward (the paper trains one RL
experiment per reward function) or per initial model. The overall board needs one per task, and
the paper picks by validation performance (its Tables 18 and 19 are such sweeps). The choice is
made on the validation split's task score and reported with every candidate's value, so the reader
sees what was picked and what was left. Without a validation split the report split is used and
the report says so (an optimistic choice). `average` instead averages the candidates, the reading
of the paper's Figure 3.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.numbers.aggregate import VARIANT_KEYS

SELECT_KEYS: list[str] = ["source", "profile", "task", "algo"]
CRITERION = "task_score"
STRATEGIES: tuple[str, ...] = ("select", "average")
SELECTION_COLUMNS: list[str] = SELECT_KEYS + VARIANT_KEYS + ["selected_on", "criterion", "value",
                                              "n_candidates", "candidates", "note"]


def report_splits(entries: pd.DataFrame, preferred: str = "test") -> dict[tuple, str]:
    """Per (source, profile, task): the split the board reports (preferred if any entry has it)."""
    out = {}
    for key, group in entries.groupby(["source", "profile", "task"], sort=True):
        splits = set(group["split"])
        # The paper's hidden test (reference.HIDDEN_TEST) comes last: grue never scores it.
        out[key] = next((s for s in (preferred, "val", "test") if s in splits), sorted(splits)[0])
    return out


def candidate_label(reward: str, init_model: str, setting_label: str = "") -> str:
    """How a candidate is named: 'meteor / t5-base', with its differing settings when it has any."""
    return f"{reward or '—'} / {init_model or '—'}" + (f" · {setting_label}" if setting_label else "")


def select(entries: pd.DataFrame, preferred: str = "test") -> pd.DataFrame:
    """One row per (source, profile, task, algo): the chosen reward and init model, and why."""
    splits = report_splits(entries, preferred)
    rows = []
    for key, group in entries.groupby(SELECT_KEYS, sort=True):
        labels = dict(zip(SELECT_KEYS, key))
        on = "val" if "val" in set(group["split"]) else splits[(labels["source"], labels["profile"], labels["task"])]
        scored = group[group["split"] == on].copy()
        scored["_v"] = scored[CRITERION].where(scored[CRITERION].notna(), -math.inf)
        scored["_tie"] = scored["naturalness_score"].fillna(-math.inf)
        ranked = scored.sort_values(["_v", "_tie"] + VARIANT_KEYS, ascending=[False, False] + [True] * len(VARIANT_KEYS))
        best = ranked.iloc[0]
        note = "" if on == "val" else f"no validation split: selected on {on} (optimistic)"
        if len(ranked) == 1:
            note = note or "single candidate"
        candidates = "; ".join(f"{candidate_label(r.reward, r.init_model, r.setting_label)}: {r.task_score:.4f}"
                               for r in ranked.itertuples())
        rows.append({**labels, **{k: best[k] for k in VARIANT_KEYS}, "selected_on": on,
                     "criterion": CRITERION, "value": float(best[CRITERION]), "n_candidates": len(ranked),
                     "candidates": candidates, "note": note})
    return pd.DataFrame(rows, columns=SELECTION_COLUMNS)


def chosen_entries(entries: pd.DataFrame, selection: pd.DataFrame, strategy: str = "select",
                   preferred: str = "test") -> pd.DataFrame:
    """The entries the overall board shows, on each task's report split.

    `select` keeps the selected candidate; `average` averages every candidate's scores.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"reward strategy {strategy!r} is not one of {', '.join(STRATEGIES)}")
    splits = report_splits(entries, preferred)
    on_split = entries[pd.Series([splits[(r.source, r.profile, r.task)] == r.split for r in entries.itertuples()],
                                 index=entries.index, dtype=bool)]
    if strategy == "select":
        keys = SELECT_KEYS + VARIANT_KEYS
        return on_split.merge(selection[keys], on=keys, how="inner")
    scores = ["task_score", "naturalness_score", "score"]
    grouped = on_split.groupby(SELECT_KEYS + ["split"], sort=True)
    out = grouped[scores].mean().reset_index()
    out["reward"] = grouped["reward"].apply(lambda s: "avg(" + ",".join(sorted(set(s))) + ")").values
    for key in ("init_model", "setting", "setting_label"):
        out[key] = grouped[key].apply(lambda s: ",".join(sorted(set(s)))).values
    out["n"] = grouped["n"].min().values
    return out


def rows_to_show(selection: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The selection rows a reader of these runs needs, and how many of the paper's rows were left out.

    Every choice made among the runs is shown. Of the paper's published rows (44 choices over its seven
    tasks), only those on a task the runs cover and with more than one candidate: a task not run here, or
    a single published candidate, involves no choice a reader could question. The exports' CSV and JSON
    keep every row.
    """
    ours = selection[selection["source"] == "runs"]
    paper = selection[selection["source"] != "runs"]
    relevant = paper[paper["task"].isin(set(ours["task"])) & (paper["n_candidates"] > 1)]
    return pd.concat([ours, relevant]) if not relevant.empty else ours, len(paper) - len(relevant)
