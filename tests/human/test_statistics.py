"""The report's statistics against values computed independently: Krippendorff's published example,
a hand computation, scipy's Tukey HSD, the textbook F ratio and exact binomial sums."""
from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import f as f_distribution
from scipy.stats import tukey_hsd

from grue.human.agreement import alpha
from grue.human.pairwise import majority_choices, win_rates
from grue.human.significance import anova, tukey

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the example with 4 observers,
# 12 units and missing values (None). His published alphas: nominal .743, ordinal .815, interval
# .849, ratio .797.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def _long(matrix) -> pd.DataFrame:
    return pd.DataFrame([{"rater": f"r{r}", "item": f"u{u:02d}", "value": float(v)}
                         for r, row in enumerate(matrix) for u, v in enumerate(row) if v is not None])


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849),
                                               ("ratio", 0.797)])
def test_alpha_matches_krippendorffs_published_example(level, published):
    assert alpha(_long(KRIPPENDORFF_EXAMPLE), level) == pytest.approx(published, abs=5e-4)


def test_interval_alpha_by_hand():
    # Units (1,2), (3,3), (5,4). Observed: D_o = (1/6) * (2*1 + 0 + 2*1) = 2/3. Expected over all six
    # values: sum over ordered pairs of squared differences = 2 * (6 * 64 - 18**2) = 120, D_e = 120 / 30 = 4.
    # alpha = 1 - (2/3) / 4 = 5/6.
    assert alpha(_long([[1, 3, 5], [2, 3, 4]])) == pytest.approx(5 / 6)


def test_alpha_is_undefined_without_pairable_ratings_or_variation():
    assert math.isnan(alpha(_long([[1, None], [None, 2]])))
    assert math.isnan(alpha(_long([[3, 3], [3, 3]])))


@pytest.fixture
def ratings() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    groups = {"nlpo": 3.6, "ppo": 3.4, "supervised": 3.5, "zero_shot": 3.0}
    rows = [{"label": label, "value": float(np.clip(np.round(rng.normal(mean, 1.0)), 1, 5))}
            for label, mean in groups.items() for _ in range(90)]
    return pd.DataFrame(rows)


def test_anova_matches_the_textbook_f_ratio(ratings):
    groups = [g.to_numpy() for _, g in ratings.groupby("label")["value"]]
    grand = ratings["value"].mean()
    between = sum(len(g) * (g.mean() - grand) ** 2 for g in groups) / (len(groups) - 1)
    within = sum(((g - g.mean()) ** 2).sum() for g in groups) / (len(ratings) - len(groups))
    result = anova(ratings)
    assert result.f == pytest.approx(between / within)
    assert (result.groups, result.n) == (4, 360)
    assert result.p == pytest.approx(f_distribution.sf(between / within, 3, 356))


def test_tukey_matches_scipy_for_every_pair(ratings):
    labels = sorted(ratings["label"].unique())
    reference = tukey_hsd(*[ratings.loc[ratings["label"] == label, "value"].to_numpy() for label in labels])
    table = tukey(ratings).set_index(["group1", "group2"])
    assert len(table) == 6
    for (i, a), (j, b) in combinations(enumerate(labels), 2):
        row = table.loc[(a, b)]
        assert row["meandiff"] == pytest.approx(-reference.statistic[i, j])  # group2 - group1, the paper's sign
        assert row["p_adj"] == pytest.approx(reference.pvalue[i, j], abs=1e-6)


def _exact_two_sided(wins: int, n: int) -> float:
    tail = sum(math.comb(n, k) for k in range(max(wins, n - wins), n + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def test_the_papers_preference_count_is_significant_by_an_exact_binomial_sum():
    # Paper §5.2: the preference reward's generations were preferred 682 times, METEOR's 587 (p < 0.01).
    judged = pd.DataFrame({"item": [f"i{i}" for i in range(682 + 587)], "label": ["pref"] * 682 + ["meteor"] * 587})
    single = win_rates(judged, ["meteor", "pref"]).set_index("unit").loc["single judgments"]
    assert (single["wins_a"], single["wins_b"]) == (587, 682)
    assert single["p_value"] == pytest.approx(_exact_two_sided(682, 1269), rel=1e-9)
    assert single["p_value"] < 0.01


def test_majority_of_three_and_its_binomial_test():
    picks = {"i1": "a a b", "i2": "a b b", "i3": "a a a", "i4": "b a a", "i5": "a a b"}
    judged = pd.DataFrame([{"item": item, "label": label} for item, labels in picks.items() for label in labels.split()])
    assert majority_choices(judged).to_dict() == {"i1": "a", "i2": "b", "i3": "a", "i4": "a", "i5": "a"}
    majority = win_rates(judged, ["a", "b"]).set_index("unit").loc["majority of raters per item"]
    assert (majority["wins_a"], majority["wins_b"], majority["win_rate_a"]) == (4, 1, 0.8)
    assert majority["p_value"] == pytest.approx(_exact_two_sided(4, 5))  # 2 * (5 + 1) / 32 = 0.375


def test_four_way_items_without_a_majority_are_left_out():
    judged = pd.DataFrame({"item": ["i1"] * 3 + ["i2"] * 3, "label": ["a", "b", "c", "c", "c", "d"]})
    assert majority_choices(judged).to_dict() == {"i2": "c"}
