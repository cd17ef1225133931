"""The paper's rater-qualification rules (spec §4.4) as an optional filter on a study's raters.

The paper kept raters who (1) did not significantly disagree with the other annotators of the same
instance more than 20% of the time, (2) completed at least 5 items, (3) were never more than one
point away from an author's answers on proxy-ground-truth items, and (4) (likely) spent a
reasonable time. Here the attention checks stand in for the author's items; "significantly
disagree" is a rating 2 or more points from the mean of the other raters of that item and axis
(for comparisons: a choice other than the one every other rater of the item made).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Rules:
    max_disagreement: float = 0.20
    min_items: int = 5
    max_gold_error: float = 1.0
    min_median_seconds: float = 3.0


def _share(flagged: pd.Series, comparable: pd.Series, rater: pd.Series) -> pd.Series:
    """Per rater: flagged judgments over comparable ones (NaN for a rater with none comparable)."""
    return flagged.groupby(rater).sum() / comparable.groupby(rater).sum().replace(0, float("nan"))


def _rating_disagreement(judged: pd.DataFrame) -> pd.Series:
    """Per rater: the share of their (item, axis) ratings far from the other raters' mean."""
    grouped = judged.groupby(["item", "axis"])["value"]
    total, count = grouped.transform("sum"), grouped.transform("count")
    others = count > 1
    mean_of_others = (total - judged["value"]) / (count - 1).where(others)
    far = ((judged["value"] - mean_of_others).abs() >= 2) & others
    return _share(far, others, judged["rater"])


def _choice_disagreement(judged: pd.DataFrame) -> pd.Series:
    """Per rater: the share of their choices that go against all the other raters of the item."""
    total = judged.groupby("item")["chosen"].transform("count")
    mine = judged.groupby(["item", "chosen"])["chosen"].transform("count")
    distinct = judged.groupby("item")["chosen"].transform("nunique")
    comparable = total >= 3  # at least two others, so "all the others" means something
    against = comparable & (mine == 1) & (distinct == 2)  # the others agree on one system, not mine
    return _share(against, comparable, judged["rater"])


def unqualified(frame: pd.DataFrame, kind: str, rules: Rules = Rules()) -> dict[str, list[str]]:
    """Rater -> the rules they break (only raters breaking at least one appear)."""
    reasons: dict[str, list[str]] = {}
    judged = frame[~is_gold(frame, kind)]
    disagreement = _rating_disagreement(judged) if kind == "ratings" else _choice_disagreement(judged)
    for rater, share in disagreement.dropna().items():
        if share > rules.max_disagreement:
            reasons.setdefault(rater, []).append(f"disagrees with the other raters on {share:.0%} of judgments")
    for rater, items in judged.groupby("rater")["item"].nunique().items():
        if items < rules.min_items:
            reasons.setdefault(rater, []).append(f"completed {items} items (< {rules.min_items})")
    checks = attention_checks(frame, kind, rules.max_gold_error)
    for rater, passed in checks.groupby(level="rater").all().items():
        if not passed:
            reasons.setdefault(rater, []).append("failed an attention check")
    for rater, seconds in frame.groupby("rater")["seconds"].median().dropna().items():
        if seconds < rules.min_median_seconds:
            reasons.setdefault(rater, []).append(f"median {seconds:.1f} s per item (< {rules.min_median_seconds:g} s)")
    return reasons


def is_gold(frame: pd.DataFrame, kind: str) -> pd.Series:
    """Which rows of a ratings or choices frame answer attention checks."""
    return frame["gold"].notna() if kind == "ratings" else frame["gold"].astype(bool)


def attention_checks(frame: pd.DataFrame, kind: str, max_error: float = 1.0) -> pd.Series:
    """(rater, item) -> whether that attention check was passed: every axis within `max_error` of the
    expected rating, or the expected candidate chosen."""
    gold = frame[is_gold(frame, kind)]
    passed = (gold["value"] - gold["gold"]).abs() <= max_error if kind == "ratings" else gold["correct"].astype(bool)
    return passed.groupby([gold["rater"], gold["item"]]).all()
