"""Corpus BLEU against hand-worked values and NLTK's implementation."""
import math

import pytest
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu

from grue.metrics.base import MetricInputs
from grue.metrics.bleu import BleuScorer, corpus_bleu as our_corpus_bleu

HYPS = [["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "here"]]
REFS = [[["the", "cat", "sat", "on", "the", "mat"], ["a", "cat", "is", "on", "the", "mat"]],
        [["a", "cat", "is", "here", "now"]]]


def test_two_order_bleu_by_hand():
    # hyp "a b c d" vs ref "a b c e f": p1 = 3/4, p2 = 2/3, brevity exp(1 - 5/4)
    value = our_corpus_bleu([["a", "b", "c", "d"]], [[["a", "b", "c", "e", "f"]]], max_n=2)
    assert value.corpus == pytest.approx(math.exp(1 - 5 / 4) * math.sqrt(3 / 4 * 2 / 3))


def test_counts_are_clipped_by_the_best_reference():
    # "the the the" vs refs with 1 and 2 "the": clipped matches 2 of 3
    value = our_corpus_bleu([["the"] * 3], [[["the", "cat", "x"], ["the", "the", "y"]]], max_n=1)
    assert value.corpus == pytest.approx(2 / 3)


def test_multi_reference_corpus_bleu_matches_nltk():
    assert our_corpus_bleu(HYPS, REFS, 4).corpus == pytest.approx(corpus_bleu(REFS, HYPS))
    three = corpus_bleu(REFS, HYPS, weights=(1 / 3, 1 / 3, 1 / 3))
    assert our_corpus_bleu(HYPS, REFS, 3).corpus == pytest.approx(three)


def test_per_sample_is_smoothed_sentence_bleu_like_nltk_method2():
    expected = [sentence_bleu(r, h, smoothing_function=SmoothingFunction().method2) for h, r in zip(HYPS, REFS)]
    assert our_corpus_bleu(HYPS, REFS, 4).per_sample == pytest.approx(expected)


def test_tokenisation_conventions():
    inputs = MetricInputs(prompts=[""], generations=["The cat, the MAT."], references=[["the cat the mat"]])
    out = BleuScorer().compute(inputs)
    assert out["bleu4"].corpus == pytest.approx(1.0)  # lower-cased, punctuation dropped
    assert out["bleu3"].corpus == pytest.approx(1.0)
    assert out["bleu"].corpus < 0.5  # whitespace tokens, case-sensitive: "The" and "cat," do not match


def test_empty_hypothesis_and_missing_order_give_zero():
    assert our_corpus_bleu([[]], [[["a", "b"]]], 4).corpus == 0.0
    assert our_corpus_bleu([["a", "b", "c"]], [[["a", "x", "c"]]], 2).corpus == 0.0  # no bigram matches


def test_bleu_brevity_penalty_counts_the_shortest_reference_and_bleu4_the_closest():
    # hyp has 6 tokens, every n-gram of it is in the 7-token reference, so all precisions are 1.
    # TF-NMT / HF `bleu` adds the shortest reference length (4 <= 6): no penalty.
    # COCO's rule (bleu3/bleu4) takes the closest length, 7: penalty exp(1 - 7/6).
    inputs = MetricInputs(prompts=[""], generations=["a b c d e f"], references=[["a b c d", "a b c d e f g"]])
    out = BleuScorer().compute(inputs)
    assert out["bleu"].corpus == pytest.approx(1.0)
    assert out["bleu4"].corpus == pytest.approx(math.exp(1 - 7 / 6))
    assert out["bleu3"].corpus == pytest.approx(math.exp(1 - 7 / 6))


def test_shortest_rule_sums_over_the_corpus_like_compute_bleu():
    # Two samples; by hand: 1-gram matches 2 + 3 of 2 + 3 hyp tokens; shortest refs 3 + 4 = 7 > 5 hyp tokens.
    hyps = [["x", "y"], ["p", "q", "r"]]
    refs = [[["x", "y", "z"], ["x", "y", "z", "w", "v"]], [["p", "q", "r", "s"], ["p", "q", "r", "s", "t", "u"]]]
    value = our_corpus_bleu(hyps, refs, max_n=1, rule="shortest")
    assert value.corpus == pytest.approx(math.exp(1 - 7 / 5))
