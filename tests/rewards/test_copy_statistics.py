"""Copy statistics (Ziegler Tables 7-8) on hand-made sources, and requested like any metric."""
import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.copying import copies_a_sentence, copies_first_words, novel_bigram_share
from grue.metrics.registry import build_scorers

ARTICLE = "Officials said on Monday that the bridge will close. Traffic is expected to double in the city."


def test_novel_bigrams_by_hand():
    # generation bigrams: (the bridge) (bridge will) (will reopen) (reopen soon); the first two are in the article
    assert novel_bigram_share("The bridge will reopen soon.", ARTICLE) == pytest.approx(2 / 4)
    assert novel_bigram_share("word", ARTICLE) == 0.0


def test_whole_sentence_copies_need_at_least_four_words():
    assert copies_a_sentence("Traffic is expected to double in the city. Great.", ARTICLE)
    assert not copies_a_sentence("Traffic is expected to triple.", ARTICLE)
    assert not copies_a_sentence("The bridge.", ARTICLE)  # a 2-word match is chance, not a copy


def test_first_three_words():
    assert copies_first_words("Officials said on Tuesday", ARTICLE)
    assert not copies_first_words("Officials say on Monday", ARTICLE)


def test_requested_as_metrics_with_the_document_as_source():
    scorers = build_scorers(["novel_2grams", "sentence_copy_rate", "first3_copy_rate"], MetricContext())
    values = scorers.compute(MetricInputs(
        prompts=["Summarize: " + ARTICLE, "Summarize: " + ARTICLE], generations=[
            "Officials said on Monday that the bridge will close.", "A new story entirely."],
        references=[["x"], ["x"]], meta=[{"document": ARTICLE}, {"document": ARTICLE}]))
    assert values["first3_copy_rate"].corpus == 0.5 and values["sentence_copy_rate"].per_sample == [1.0, 0.0]
    assert values["novel_2grams"].per_sample == [0.0, 1.0]
