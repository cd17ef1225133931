"""Significance over seeds: Welch's t-test between two rows and Holm's correction over a family.

Seeds are the unit: each seed is one independent training run, so two rows are compared on their
per-seed values with Welch's test (no equal-variance assumption: RL seeds vary far more than
supervised ones). When several comparisons answer one question, Holm's step-down correction keeps
the family-wise error at alpha without Bonferroni's loss of power. Fewer than two seeds on either
side means no variance estimate: the answer is "not testable", never a verdict.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from scipy import stats

ALPHA = 0.05
NOT_TESTABLE = "not testable"


@dataclass(frozen=True)
class Welch:
    """Outcome of one two-sided Welch t-test (diff = mean_a - mean_b)."""

    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    diff: float
    t: float
    dof: float
    p: float
    reason: str = ""  # why it is not testable, if it is not

    @property
    def testable(self) -> bool:
        return math.isfinite(self.p)


def _untestable(n_a: int, n_b: int, mean_a: float, mean_b: float, reason: str) -> Welch:
    return Welch(n_a, n_b, mean_a, mean_b, mean_a - mean_b, math.nan, math.nan, math.nan, reason)


def welch_from_stats(mean_a: float, std_a: float, n_a: float, mean_b: float, std_b: float, n_b: float) -> Welch:
    """Welch's test from summary statistics (what the paper publishes: mean, std, seed count)."""
    n_a = int(n_a) if n_a is not None and math.isfinite(n_a) else 0
    n_b = int(n_b) if n_b is not None and math.isfinite(n_b) else 0
    if n_a < 2 or n_b < 2:
        return _untestable(n_a, n_b, mean_a, mean_b, f"{NOT_TESTABLE}: needs 2+ seeds per side (have {n_a} and {n_b})")
    if not (math.isfinite(std_a) and math.isfinite(std_b)):
        return _untestable(n_a, n_b, mean_a, mean_b, f"{NOT_TESTABLE}: a standard deviation is unknown")
    var_a, var_b = std_a ** 2 / n_a, std_b ** 2 / n_b
    if var_a + var_b == 0:
        return _untestable(n_a, n_b, mean_a, mean_b, f"{NOT_TESTABLE}: both sides have zero variance")
    t = (mean_a - mean_b) / math.sqrt(var_a + var_b)
    dof = (var_a + var_b) ** 2 / (var_a ** 2 / (n_a - 1) + var_b ** 2 / (n_b - 1))
    p = float(2 * stats.t.sf(abs(t), dof))
    return Welch(n_a, n_b, mean_a, mean_b, mean_a - mean_b, t, dof, p)


def welch(a: Sequence[float], b: Sequence[float]) -> Welch:
    """Welch's two-sided test on two samples of per-seed values."""
    a, b = [float(x) for x in a], [float(x) for x in b]
    mean_a = sum(a) / len(a) if a else math.nan
    mean_b = sum(b) / len(b) if b else math.nan
    if len(a) < 2 or len(b) < 2:
        return _untestable(len(a), len(b), mean_a, mean_b,
                           f"{NOT_TESTABLE}: needs 2+ seeds per side (have {len(a)} and {len(b)})")
    std_a = stats.tstd(a) if len(set(a)) > 1 else 0.0
    std_b = stats.tstd(b) if len(set(b)) > 1 else 0.0
    return welch_from_stats(mean_a, std_a, len(a), mean_b, std_b, len(b))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in input order; NaN (untestable) stays NaN and is not in the family.

    Sorted ascending, p_(i) is multiplied by (m - i + 1); a running maximum keeps the adjusted
    values monotone; the result is capped at 1.
    """
    order = sorted((p, i) for i, p in enumerate(pvalues) if p is not None and math.isfinite(p))
    m = len(order)
    adjusted = [math.nan] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def verdict(test: Welch, p_adjusted: float, higher_is_better: bool, alpha: float = ALPHA) -> str:
    """'a better', 'b better', 'no significant difference' or the untestable reason."""
    if not test.testable or not math.isfinite(p_adjusted):
        return test.reason or NOT_TESTABLE
    if p_adjusted >= alpha:
        return "no significant difference"
    a_better = (test.diff > 0) == higher_is_better
    return "a better" if a_better else "b better"
