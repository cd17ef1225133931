"""The paper's rater-qualification rules, each broken by one rater of a hand-made study."""
from __future__ import annotations

import math

import pandas as pd

from grue.human.qualification import Rules, unqualified

ITEMS = [f"i{n}" for n in range(6)]


def _rows(rater, items, value, seconds=20.0, axis="quality"):
    return [{"rater": rater, "item": item, "axis": axis, "value": float(value), "seconds": seconds,
             "gold": math.nan} for item in items]


def _gold(rater, value, expected=2.0):
    return [{"rater": rater, "item": "g1", "axis": "quality", "value": float(value), "seconds": 20.0, "gold": expected}]


def test_each_rule_catches_its_rater_and_only_them():
    rows = (_rows("a", ITEMS, 4) + _rows("b", ITEMS, 4) + _rows("c", ITEMS, 1) + _rows("d", ITEMS[:3], 4)
            + _rows("e", ITEMS, 4) + _rows("f", ITEMS, 4, seconds=1.0))
    rows += _gold("a", 2) + _gold("b", 3) + _gold("c", 2) + _gold("d", 2) + _gold("e", 4) + _gold("f", 1)
    reasons = unqualified(pd.DataFrame(rows), "ratings")
    assert set(reasons) == {"c", "d", "e", "f"}
    assert reasons["c"] == ["disagrees with the other raters on 100% of judgments"]  # 1 against the others' 4
    assert reasons["d"] == ["completed 3 items (< 5)"]
    assert reasons["e"] == ["failed an attention check"]  # 2 points off; b and f are 1 point off and pass
    assert reasons["f"] == ["median 1.0 s per item (< 3 s)"]


def test_the_thresholds_are_parameters():
    rows = _rows("a", ITEMS, 4) + _rows("b", ITEMS, 4, seconds=4.0)
    assert unqualified(pd.DataFrame(rows), "ratings", Rules(min_median_seconds=5.0)) == {
        "b": ["median 4.0 s per item (< 5 s)"]}
    assert unqualified(pd.DataFrame(rows), "ratings", Rules(min_items=7)).keys() == {"a", "b"}


def test_comparisons_count_a_choice_against_unanimous_others():
    picks = {"i1": "AAB", "i2": "AAB", "i3": "AAA", "i4": "ABC", "i5": "AAB", "i6": "BBB"}
    rows = [{"rater": rater, "item": item, "chosen": pick, "seconds": 10.0, "gold": False, "correct": None}
            for item, trio in picks.items() for rater, pick in zip("xyz", trio)]
    reasons = unqualified(pd.DataFrame(rows), "comparisons")
    # z went against the unanimous x and y on i1, i2 and i5: 3 of 6 judgments.
    assert reasons == {"z": ["disagrees with the other raters on 50% of judgments"]}
