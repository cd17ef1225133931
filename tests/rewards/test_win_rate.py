"""Win rate by majority of judges, and the two-sided exact binomial test."""
import math

import pytest

from grue.data.sample import Sample
from grue.rewards.learned.labelers import MockLabeler
from grue.rewards.learned.win_rate import binomial_two_sided, majority_win_rate, pair_queries
from tests.rewards.toy_preferences import WordOracle


def test_binomial_test_by_hand_on_small_counts():
    # 9 of 10: outcomes at most as likely are 0, 1, 9, 10 -> (1 + 10 + 10 + 1) / 1024
    assert binomial_two_sided(9, 10) == pytest.approx(22 / 1024)
    assert binomial_two_sided(5, 10) == pytest.approx(1.0)


def test_the_papers_682_against_587_is_significant_at_one_percent():
    p = binomial_two_sided(682, 682 + 587)
    z = (682 - 1269 / 2) / math.sqrt(1269 / 4)  # normal approximation, continuity-corrected below
    approx = math.erfc((abs(z) - 0.5 / math.sqrt(1269 / 4)) / math.sqrt(2))
    assert p < 0.01 and p == pytest.approx(approx, rel=0.05)


def test_majority_of_three_judges_decides_and_order_is_randomised():
    samples = [Sample(str(i), "Review:", ()) for i in range(200)]
    a = [" delight highly recommend"] * 150 + [" boring"] * 50
    b = [" boring mess"] * 150 + [" delight"] * 50
    queries = pair_queries(samples, a, b, "run-a", "run-b", seed=0)
    assert 60 < sum(q.candidates[0].source == "run-a" for q in queries) < 140
    answers = [ans for j in range(3) for ans in MockLabeler(WordOracle(), error_rate=0.2, seed=j, judge=str(j)).label(queries, {})]
    result = majority_win_rate(queries, answers, "run-a")
    assert result.a_wins + result.b_wins + result.ties == 200
    assert {a.labeler for a in answers} == {"mock:toy_words@e0.2#0", "mock:toy_words@e0.2#1", "mock:toy_words@e0.2#2"}
    assert 125 < result.a_wins < 160 and result.p_value < 1e-6  # a is better on 150 of 200; majority of 3 at 20 % noise
    clean = majority_win_rate(queries, MockLabeler(WordOracle()).label(queries, {}), "run-a")
    assert (clean.a_wins, clean.b_wins, clean.ties) == (150, 50, 0)


def test_an_even_split_of_judges_is_a_tie():
    samples = [Sample("0", "p", ())]
    queries = pair_queries(samples, [" delight"], [" boring"], "a", "b")
    q = queries[0]
    a_index = [c.source for c in q.candidates].index("a")
    answers = [q.answer(a_index, "x"), q.answer(1 - a_index, "y")]
    assert majority_win_rate(queries, answers, "a").ties == 1
