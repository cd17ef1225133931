"""Comparison studies: which system wins, by the majority of the raters of each item, and whether
the split could be chance (two-sided binomial test against 50:50, scipy's `binomtest`).

A best-of-k choice of A is a win of A over every other candidate of that item. For each pair of
systems both tables count only decisive outcomes between the two: items whose majority picked
one of them, and single judgments that picked one of them (the paper's "682 vs 587" is of the
second kind).
"""
from __future__ import annotations

from itertools import combinations

import pandas as pd
from scipy.stats import binomtest

WIN_COLUMNS = ["system_a", "system_b", "wins_a", "wins_b", "win_rate_a", "p_value", "unit"]


def majority_choices(judged: pd.DataFrame) -> pd.Series:
    """Item -> the label more than half its raters chose (items without such a majority are left out)."""
    counts = judged.groupby(["item", "label"]).size()
    totals = judged.groupby("item").size()
    top = counts.groupby(level="item").idxmax().map(lambda key: key[1])
    share = counts.groupby(level="item").max() / totals
    return top[share > 0.5]


def _row(a: str, b: str, wins_a: int, wins_b: int, unit: str) -> list:
    n = wins_a + wins_b
    rate = wins_a / n if n else float("nan")
    p = binomtest(wins_a, n, 0.5).pvalue if n else float("nan")
    return [a, b, wins_a, wins_b, rate, float(p), unit]


def win_rates(judged: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Every pair of `labels`, on item majorities and on single judgments (`unit` says which)."""
    majority = majority_choices(judged).value_counts()
    single = judged["label"].value_counts()
    rows = []
    for a, b in combinations(sorted(labels), 2):
        rows.append(_row(a, b, int(majority.get(a, 0)), int(majority.get(b, 0)), "majority of raters per item"))
        rows.append(_row(a, b, int(single.get(a, 0)), int(single.get(b, 0)), "single judgments"))
    return pd.DataFrame(rows, columns=WIN_COLUMNS)
