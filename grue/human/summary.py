"""Per system and axis, the paper's human-study columns: distinct raters ("Unique N"), mean rating
("Value"), Krippendorff's alpha; plus the number of ratings, their spread and a 95% t-interval of
the mean. The interval treats ratings as independent, which repeated raters and items are not:
read it as a guide, and the Tukey HSD tables for the tests. The paper's "Skew" column is left out:
the paper does not say what it is."""
from __future__ import annotations

import math

import pandas as pd
from scipy.stats import t as student_t

from grue.human.agreement import alpha

SUMMARY_COLUMNS = ["label", "axis", "raters", "n", "mean", "std", "ci_low", "ci_high", "alpha"]


def mean_interval(values: pd.Series, level: float = 0.95) -> tuple[float, float]:
    n = len(values)
    if n < 2:
        return math.nan, math.nan
    half = student_t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / math.sqrt(n)
    return float(values.mean() - half), float(values.mean() + half)


def summarise(judged: pd.DataFrame, axes: list[str], level: str = "interval",
              scale: tuple[int, int] = (1, 5)) -> pd.DataFrame:
    """One row per system label and axis, from the long ratings table without attention checks."""
    rows = []
    for (label, axis), group in judged.groupby(["label", "axis"], sort=True):
        if axis not in axes:
            continue
        low, high = mean_interval(group["value"])
        rows.append([label, axis, group["rater"].nunique(), len(group), float(group["value"].mean()),
                     float(group["value"].std(ddof=1)) if len(group) > 1 else math.nan, low, high,
                     alpha(group, level, scale)])
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
