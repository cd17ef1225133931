"""Diversity statistics against values worked out by hand."""
import math

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.diversity import DiversityScorer, tokenize
from grue.metrics.registry import build_scorers


def score(generations, window=100):
    inputs = MetricInputs(prompts=[""] * len(generations), generations=generations, references=[])
    return {k: v.corpus for k, v in DiversityScorer(window).compute(inputs).items()}


def test_tokenisation_is_lowercased_treebank_like_gem_metrics():
    # GEM-metrics: nltk.word_tokenize, then each token lower-cased. Treebank splits the clitic off a
    # contraction and keeps hyphenated words whole.
    assert tokenize("Don't STOP!") == ("do", "n't", "stop", "!")
    assert tokenize("It's a live-action film, isn't it?") == (
        "it", "'s", "a", "live-action", "film", ",", "is", "n't", "it", "?")


@pytest.mark.parametrize("text", ["She said \"it's fine\" (mostly) -- we'll see; they're 2.5x cheaper!",
                                  "I can't believe it doesn't work at the U.S. office..."])
def test_tokens_equal_nltk_word_tokenize_on_one_line(text):
    from nltk import word_tokenize

    # preserve_line skips punkt (not installed here); each text is one sentence, so punkt would not split it
    assert tokenize(text) == tuple(t.lower() for t in word_tokenize(text, preserve_line=True))


def test_contractions_and_hyphens_by_hand():
    # tokens: it 's live-action . | it does n't work .   (9 tokens, 7 types)
    v = score(["It's live-action.", "It doesn't work."])
    assert v["distinct_1"] == pytest.approx(7 / 9)
    assert v["unique_1"] == 5  # all but "it" and "."
    assert v["distinct_2"] == pytest.approx(1.0)  # 3 + 4 bigrams, all different
    assert v["unique_2"] == 7
    assert v["msttr"] == pytest.approx(7 / 9)


def test_two_short_generations_by_hand():
    # tokens: the cat sat | the cat ran ; unigrams the:2 cat:2 sat:1 ran:1 ; bigrams (the cat):2 (cat sat) (cat ran)
    v = score(["The cat sat", "the cat ran"])
    assert v["distinct_1"] == pytest.approx(4 / 6)
    assert v["unique_1"] == 2
    assert v["entropy_1"] == pytest.approx(2 / 3 * math.log2(3) + 1 / 3 * math.log2(6))
    # "sat the" is not a bigram: n-grams stay inside one generation
    assert v["distinct_2"] == pytest.approx(3 / 4)
    assert v["unique_2"] == 2
    assert v["entropy_2"] == pytest.approx(1.5)
    assert v["msttr"] == pytest.approx(4 / 6)  # fewer tokens than one window: plain TTR


def test_msttr_averages_full_windows_and_drops_the_partial_one():
    gens = ["the cat sat", "the cat ran"]
    assert score(gens, window=3)["msttr"] == pytest.approx(1.0)  # [the cat sat] [the cat ran]
    assert score(gens, window=4)["msttr"] == pytest.approx(3 / 4)  # [the cat sat the], rest dropped
    # MSTTR spans generations: windows of 2 over "a b a a a a b b c d" = 1, .5, .5, .5, 1
    assert score(["a b a", "a a a b", "b c d"], window=2)["msttr"] == pytest.approx(0.7)


@pytest.mark.parametrize("generations", [[], [""], ["", "   "]])
def test_no_tokens_gives_zero_everywhere(generations):
    assert set(score(generations).values()) == {0.0}


def test_one_repeated_token():
    v = score(["ha " * 500])
    assert v["msttr"] == pytest.approx(0.01)
    assert v["distinct_1"] == pytest.approx(1 / 500)
    assert v["entropy_1"] == 0.0 and v["entropy_2"] == 0.0
    assert v["unique_1"] == 0 and v["unique_2"] == 0


def test_unicode_words_are_tokens():
    v = score(["naïve café 日本語 naïve"])
    assert v["distinct_1"] == pytest.approx(3 / 4)
    assert v["unique_1"] == 2


def test_very_long_text_is_handled():
    words = [f"w{i % 250}" for i in range(200_000)]
    v = score([" ".join(words)])
    assert v["msttr"] == pytest.approx(1.0)  # every 100-window of a 250-cycle has 100 types
    assert v["unique_1"] == 0
    assert v["entropy_1"] == pytest.approx(math.log2(250))


def test_registered_with_window_option():
    scorers = build_scorers(["msttr", "distinct_2"], MetricContext(options={"msttr_window": 2}))
    out = scorers.compute(MetricInputs(prompts=["", ""], generations=["a a", "b c"], references=[]))
    assert set(out) == {"msttr", "distinct_2"}
    assert out["msttr"].corpus == pytest.approx(0.75)
    assert scorers.unavailable == {}
