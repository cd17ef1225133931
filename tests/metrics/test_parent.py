"""PARENT against values worked out by hand from Dhingra et al. (2019)."""
import math

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.lcs import lcs_length
from grue.metrics.parent import Parent, parse_table, tokens
from grue.metrics.registry import build_scorers

S = 1e-5  # the smoothing constant


def parent(gens, refs, tables, **options):
    inputs = MetricInputs(prompts=[""] * len(gens), generations=gens, references=refs,
                          meta=[{"table": t} for t in tables])
    return build_scorers(["parent"], MetricContext(options=options)).compute(inputs)["parent"]


def test_short_prediction_by_hand():
    # table {name: alice}; reference "alice sings"; prediction "alice"
    # precision: order 1 = 1 ("alice" is in the reference), orders 2-4 have no n-grams -> smoothed
    p = S ** (3 / 4)
    # reference recall: order 1: weights alice=1, sings=0 -> 1; order 2: "alice sings" (w=1/2) missed -> smoothed;
    # orders 3-4 have no reference n-grams -> 1
    r_ref = S ** (1 / 4)
    # table recall of the prediction = 1; lambda = 1 - table recall of the reference = 0
    f = 2 * p * r_ref / (p + r_ref)
    assert parent(["Alice"], [["alice sings"]], [[("name", "Alice")]]).corpus == pytest.approx(f)


def test_table_recall_and_fixed_lambda_by_hand():
    table = [("name", "michael dahlquist"), ("occupation", "drummer")]
    pred, ref = tokens("michael dahlquist was a drummer"), tokens("michael dahlquist was a drummer")
    precision, recall, f = Parent(lambda_weight=0.5).score(pred, ref, parse_table(table), parse_table(table))
    assert precision == pytest.approx(1.0) and recall == pytest.approx(1.0)
    # Only "michael" said: table recall = (1/2 + 0) / 2; reference recall from n-gram orders by hand
    pred = tokens("michael")
    precision, recall, _ = Parent(lambda_weight=0.5).score(pred, ref, parse_table(table), parse_table(table))
    # reference n-gram weights (share of tokens in table values {michael, dahlquist, drummer}):
    # order1: michael 1, dahlquist 1, was 0, a 0, drummer 1 -> found 1 of 3
    # order2: (michael dahlquist) 1, (dahlquist was) .5, (was a) 0, (a drummer) .5 -> found 0 -> smoothed
    # order3: .. weights 2/3, 1/3, 1/3 -> 0 -> smoothed; order4: 2/4, 2/4 -> 0 -> smoothed
    ref_recall = math.exp((math.log(1 / 3) + 3 * math.log(S)) / 4)
    assert recall == pytest.approx(ref_recall ** 0.5 * 0.25 ** 0.5)
    assert precision == pytest.approx(S ** (3 / 4))


def test_entailed_words_not_in_the_reference_still_count_for_precision():
    table = [("team", "red sox")]
    with_table_word = parent(["the red sox won"], [["the team won"]], [table], parent_lambda=0.5).corpus
    with_other_word = parent(["the big cat won"], [["the team won"]], [table], parent_lambda=0.5).corpus
    assert with_table_word > with_other_word


def test_best_reference_is_used():
    table = [("name", "bob")]
    one = parent(["bob plays chess"], [["bob plays chess"]], [table]).corpus
    two = parent(["bob plays chess"], [["someone else entirely", "bob plays chess"]], [table]).corpus
    assert two == pytest.approx(one)


def test_degenerate_inputs():
    value = parent(["", "bob " * 500, "Zoë 日本語"], [["bob"], ["bob"], ["Zoë 日本語"]],
                   [[("name", "bob")], [("name", "bob")], [("name", "")]])
    assert value.per_sample[0] == 0.0
    assert all(math.isfinite(v) and 0 <= v <= 1 for v in value.per_sample)


def test_lcs():
    assert lcs_length("a b c d".split(), "x a c y d".split()) == 3
    assert lcs_length([], ["a"]) == 0
