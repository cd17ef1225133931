"""Differences between systems on one axis: one-way ANOVA (scipy) and Tukey HSD for every pair
(statsmodels), over individual ratings as the paper does (300 points per algorithm at 100 x 3)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import pandas as pd
from scipy.stats import f_oneway
from statsmodels.stats.multicomp import pairwise_tukeyhsd


@dataclass(frozen=True)
class Anova:
    f: float
    p: float
    groups: int
    n: int


def anova(ratings: pd.DataFrame) -> Anova:
    """One-way ANOVA of `value` across `label` groups (NaN statistics with fewer than two groups)."""
    groups = [g["value"].to_numpy() for _, g in ratings.groupby("label", sort=True)]
    if len(groups) < 2:
        return Anova(math.nan, math.nan, len(groups), len(ratings))
    result = f_oneway(*groups)
    return Anova(float(result.statistic), float(result.pvalue), len(groups), len(ratings))


def tukey(ratings: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair: group1, group2, meandiff (group2 - group1, the paper's sign), p_adj, lower, upper, reject."""
    columns = ["group1", "group2", "meandiff", "p_adj", "lower", "upper", "reject"]
    if ratings["label"].nunique() < 2:
        return pd.DataFrame(columns=columns)
    result = pairwise_tukeyhsd(ratings["value"].to_numpy(), ratings["label"].to_numpy(), alpha=alpha)
    pairs = combinations(result.groupsunique, 2)  # statsmodels' own pair order (its summary table's rows)
    return pd.DataFrame([[str(a), str(b), float(d), float(p), float(lo), float(hi), bool(r)]
                         for (a, b), d, p, (lo, hi), r in zip(pairs, result.meandiffs, result.pvalues,
                                                            result.confint, result.reject)], columns=columns)
