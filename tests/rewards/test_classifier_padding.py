"""A classifier scores a text alike whatever else is in its batch, even when its saved tokenizer pads on the left.

Found by a test that failed only after another: a fast tokenizer called with left padding keeps that side in the
tokenizer.json it saves, and the tiny BERT sentiment classifier saved after such calls scored "good film" 0.4946
alone and 0.4964 beside a longer text (BERT's absolute positions shifted by the padding)."""
from __future__ import annotations

import shutil

import pytest

TEXTS = ["good film", "a much much longer text about a film that was bad, indeed, and long"]


@pytest.fixture
def left_padding_classifier(tiny_model_dirs, tmp_path):
    from transformers import AutoTokenizer

    folder = tmp_path / "classifier"
    shutil.copytree(tiny_model_dirs.classifier, folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.padding_side = "left"
    tokenizer(TEXTS, padding=True)  # the call that sets the backend's padding side
    tokenizer.save_pretrained(folder)
    assert AutoTokenizer.from_pretrained(folder)(TEXTS, padding=True)["attention_mask"][0][0] == 0  # it pads left
    return str(folder)


def test_the_sentiment_reward_s_scores_do_not_depend_on_the_batch(left_padding_classifier):
    from grue.rewards.sentiment import SentimentClassifier

    classifier = SentimentClassifier(left_padding_classifier)
    together = classifier.positive_probability(TEXTS)
    alone = [classifier.positive_probability([text])[0] for text in TEXTS]
    assert together == pytest.approx(alone, abs=1e-6)


def test_a_metric_s_classifier_scores_do_not_depend_on_the_batch(left_padding_classifier):
    from grue.metrics.hf_models import classifier_logits, load_classifier

    tokenizer, model = load_classifier(left_padding_classifier, "cpu", "intent_accuracy")
    together = classifier_logits(tokenizer, model, TEXTS)
    alone = [classifier_logits(tokenizer, model, [text])[0] for text in TEXTS]
    for row, single in zip(together, alone):
        assert row.tolist() == pytest.approx(single.tolist(), abs=1e-5)
