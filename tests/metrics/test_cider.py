"""CIDEr-D against values worked out by hand from its definition."""
import math

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.cider import CiderD
from grue.metrics.registry import build_scorers

PENALTY_ONE_BIGRAM = math.exp(-1 / 72)  # Gaussian length penalty, delta 1, sigma 6


def cider(gens, refs):
    inputs = MetricInputs(prompts=["same prompt"] * len(gens), generations=gens, references=refs)
    return build_scorers(["cider"], MetricContext()).compute(inputs)["cider"]


def test_identical_two_token_caption_by_hand():
    # N=2 documents, every n-gram has df <= 1 so weight = tf * ln 2; orders 1 and 2 match perfectly,
    # orders 3 and 4 are empty: 10 * (1 + 1 + 0 + 0) / 4 = 5. The other sample shares nothing: 0.
    value = cider(["a b", "c"], [["a b"], ["d"]])
    assert value.per_sample == pytest.approx([5.0, 0.0])
    assert value.corpus == pytest.approx(2.5)


def test_partial_overlap_and_length_penalty_by_hand():
    # "a b c" vs "a b": cos1 = 2/sqrt(6), cos2 = 1/sqrt(2), cos3 = 0; lengths 2 vs 1 bigrams
    value = cider(["a b c", "x"], [["a b"], ["y"]])
    assert value.per_sample[0] == pytest.approx(10 * (2 / math.sqrt(6) + 1 / math.sqrt(2)) * PENALTY_ONE_BIGRAM / 4)


def test_repeated_ngrams_are_clipped():
    # "a a b" vs "a b": the weight of "a" (2 ln2) is clipped to the reference's (ln2): cos1 = 2/sqrt(10)
    value = cider(["a a b", "x"], [["a b"], ["y"]])
    assert value.per_sample[0] == pytest.approx(10 * (2 / math.sqrt(10) + 1 / math.sqrt(2)) * PENALTY_ONE_BIGRAM / 4)


def test_document_frequency_lowers_common_ngrams():
    # "a" appears in every sample's references: idf 0, so matching only "a" earns nothing
    value = cider(["a", "a", "a"], [["a b"], ["a c"], ["a d"]])
    assert value.per_sample == pytest.approx([0.0, 0.0, 0.0])


def test_several_references_are_averaged():
    one = cider(["a b", "c"], [["a b"], ["d"]]).per_sample[0]
    two = cider(["a b", "c"], [["a b", "zz"], ["d"]]).per_sample[0]
    assert two < one


def test_duplicate_prompts_do_not_collapse():
    value = cider(["a b", "q r", "c"], [["a b"], ["a b"], ["d"]])  # all share the prompt "same prompt"
    assert value.per_sample[0] > 0 and value.per_sample[1] == 0.0


def test_degenerate_inputs():
    assert CiderD().scores([[]], [[["a"]]]) == [0.0]  # one document: log N = 0
    value = cider(["", "the the the the the"], [["a cat"], ["the"]])
    assert value.per_sample[0] == 0.0 and math.isfinite(value.corpus)
