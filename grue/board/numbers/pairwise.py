"""Pairwise comparisons of algorithms per task over seeds, Holm-corrected per family.

A family is every algorithm pair on one task, profile and measure (task score or naturalness
score), each algorithm represented by its selected entry. Only the user's runs are tested: the
paper's rows carry at most summary statistics and belong to `grue compare`.
"""
from __future__ import annotations

from itertools import combinations

import pandas as pd

from grue.board.numbers.aggregate import VARIANT_KEYS
from grue.board.numbers.selection import SELECT_KEYS
from grue.board.numbers.stats import holm, verdict, welch
from grue.board.task_info import algo_rank

MEASURES: tuple[str, ...] = ("task_score", "naturalness_score")
TEST_COLUMNS: list[str] = ["profile", "task", "measure", "split", "a", "b", "n_a", "n_b", "mean_a", "mean_b", "diff",
                           "t", "dof", "p", "p_holm", "verdict"]


def selected_seeds(seeds: pd.DataFrame, selection: pd.DataFrame, splits: dict[tuple, str]) -> pd.DataFrame:
    """Per-seed scores of the selected entries on each task's report split."""
    keys = SELECT_KEYS + VARIANT_KEYS
    picked = seeds.merge(selection[keys], on=keys, how="inner")
    keep = pd.Series([splits.get((r.source, r.profile, r.task)) == r.split for r in picked.itertuples()],
                     index=picked.index, dtype=bool)  # a Series: an empty list would select columns instead
    return picked[keep]


def _named(text: str, a: str, b: str) -> str:
    """'a better' -> 'ppo better': the reader should not have to map A and B back to names."""
    return {"a better": f"{a} better", "b better": f"{b} better"}.get(text, text)


def pairwise_tests(picked: pd.DataFrame, measures: tuple[str, ...] = MEASURES) -> pd.DataFrame:
    """Welch tests for every algorithm pair per (profile, task, measure), Holm within each family; a measure no
    run of the task reports makes no family (one 'not testable' line per pair would say nothing)."""
    rows = []
    for (profile, task), group in picked.groupby(["profile", "task"], sort=True):
        algos = sorted(set(group["algo"]), key=algo_rank)
        split = group["split"].iloc[0]
        for measure in measures:
            if measure not in group or group[measure].dropna().empty:
                continue  # no run of the task reports it (e.g. its naturalness metrics are unavailable): no family
            family = []
            for a, b in combinations(algos, 2):
                values_a = group.loc[group["algo"] == a, measure].dropna()
                values_b = group.loc[group["algo"] == b, measure].dropna()
                family.append((a, b, welch(values_a, values_b)))
            for (a, b, test), p_adj in zip(family, holm([t.p for _, _, t in family])):
                rows.append({"profile": profile, "task": task, "measure": measure, "split": split, "a": a, "b": b,
                             "n_a": test.n_a, "n_b": test.n_b, "mean_a": test.mean_a, "mean_b": test.mean_b,
                             "diff": test.diff, "t": test.t, "dof": test.dof, "p": test.p, "p_holm": p_adj,
                             "verdict": _named(verdict(test, p_adj, higher_is_better=True), a, b)})
    return pd.DataFrame(rows, columns=TEST_COLUMNS)
