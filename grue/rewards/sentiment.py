"""P(positive) of a sentiment classifier on prompt + continuation: IMDB's reward and task metric.

As in the reference setup the classifier reads the prompt and the generated text together,
left-truncated so the continuation (the part the policy controls) is always seen.

The same classifier as a reward on other scales (the metric stays P(positive)):
- `sentiment` (RL4LMs): P(positive), in [0, 1].
- `sentiment_logit` (DRLC's extrinsic reward, "the positive-class logit"; TRL's sentiment pipeline
  without a softmax): the positive class's raw logit.
- `sentiment_logodds` (Ziegler's mock-sentiment r_s): log P(positive) / (1 - P(positive)).
- `sentiment_normalised`: P(positive) standardised to mean 0 and variance 1 over the initial policy's
  samples, the scale a learned reward is normalised to (grue.rewards.learned.normalised), so RL on the
  oracle and RL on a reward model learned from it meet the same KL coefficient at the same scale.
"""
from __future__ import annotations

from typing import Sequence

import torch

from grue.data.sample import Sample
from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.registry import register
from grue.rewards.registry import register_reward


class SentimentClassifier:
    """Loads a sequence classifier once and scores texts in batches (inference mode, no dropout)."""

    def __init__(self, ref: str, batch_size: int = 64, positive_label: int = 1, device: str = "cpu",
                 max_length: int = 512) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from grue.assets import resolve_model

        path = resolve_model(ref)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.tokenizer.truncation_side = "left"
        # right padding whatever the saved tokenizer says: an encoder with absolute positions (BERT, RoBERTa) scores a
        # left-padded text at shifted positions, so its score would depend on the longest text in its batch, and a
        # tokenizer saved after left-padded calls keeps that side in its tokenizer.json
        self.tokenizer.padding_side = "right"
        self.model = AutoModelForSequenceClassification.from_pretrained(path).to(device).eval()
        self.batch_size = batch_size
        self.positive_label = positive_label
        self.device = device
        self.max_length = min(max_length, getattr(self.tokenizer, "model_max_length", max_length))

    @torch.inference_mode()
    def positive_probability(self, texts: Sequence[str]) -> list[float]:
        out: list[float] = []
        for start in range(0, len(texts), self.batch_size):
            batch = self.tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                                   max_length=self.max_length, return_tensors="pt").to(self.device)
            probs = self.model(**batch).logits.float().softmax(-1)[:, self.positive_label]
            out.extend(probs.tolist())
        return out

    @torch.inference_mode()
    def positive_logits(self, texts: Sequence[str]) -> tuple[list[float], list[float]]:
        """(the positive class's raw logit, log P(positive) / P(not positive)) per text."""
        logits_out, logodds_out = [], []
        for start in range(0, len(texts), self.batch_size):
            batch = self.tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                                   max_length=self.max_length, return_tensors="pt").to(self.device)
            logits = self.model(**batch).logits.float()
            positive = logits[:, self.positive_label]
            others = torch.cat([logits[:, :self.positive_label], logits[:, self.positive_label + 1:]], dim=1)
            logits_out.extend(positive.tolist())
            logodds_out.extend((positive - others.logsumexp(-1)).tolist())
        return logits_out, logodds_out


_CLASSIFIERS: dict[tuple[str, str], SentimentClassifier] = {}


def shared_classifier(ref: str, device: str = "cpu", batch_size: int = 64) -> SentimentClassifier:
    """Reward and metric use the same classifier: load it once per process."""
    key = (ref, device)
    if key not in _CLASSIFIERS:
        _CLASSIFIERS[key] = SentimentClassifier(ref, batch_size=batch_size, device=device)
    return _CLASSIFIERS[key]


SCALES = ("probability", "logit", "logodds")


class SentimentReward:
    def __init__(self, classifier: SentimentClassifier, scale: str = "probability") -> None:
        if scale not in SCALES:
            raise ValueError(f"sentiment reward scale must be one of {', '.join(SCALES)}, not {scale!r}")
        self.classifier, self.scale = classifier, scale
        self.name = "sentiment" if scale == "probability" else f"sentiment_{scale}"

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        texts = [s.prompt + g for s, g in zip(samples, generations)]
        if self.scale == "probability":
            return self.classifier.positive_probability(texts)
        logits, logodds = self.classifier.positive_logits(texts)
        return logits if self.scale == "logit" else logodds


def _classifier(cfg) -> SentimentClassifier:
    if not cfg.reward.model:
        raise ValueError("reward.model must name the sentiment classifier")
    from grue.runtime.process import device_of

    return shared_classifier(cfg.reward.model, device_of(cfg), cfg.reward.batch_size)


@register_reward("sentiment")
def _sentiment_reward(cfg) -> SentimentReward:
    return SentimentReward(_classifier(cfg))


@register_reward("sentiment_logit")
def _sentiment_logit_reward(cfg) -> SentimentReward:
    return SentimentReward(_classifier(cfg), "logit")


@register_reward("sentiment_logodds")
def _sentiment_logodds_reward(cfg) -> SentimentReward:
    return SentimentReward(_classifier(cfg), "logodds")


@register_reward("sentiment_normalised")
def _sentiment_normalised_reward(cfg):
    from grue.rewards.learned.normalised import RhoNormalisedReward

    return RhoNormalisedReward(SentimentReward(_classifier(cfg)), "sentiment_normalised")


class SentimentScorer:
    names = ("sentiment",)
    higher_is_better = {"sentiment": True}

    def __init__(self, classifier: SentimentClassifier) -> None:
        self.classifier = classifier

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        texts = [p + g for p, g in zip(inputs.prompts, inputs.generations)]
        scores = self.classifier.positive_probability(texts) if texts else []
        corpus = sum(scores) / len(scores) if scores else float("nan")
        return {"sentiment": MetricValue(corpus, scores)}


@register(higher_is_better={"sentiment": True})
def _sentiment_metric(ctx: MetricContext) -> SentimentScorer:
    ref = ctx.options.get("sentiment_model")
    if not ref:
        from grue.metrics.base import MetricUnavailable

        raise MetricUnavailable("no sentiment classifier configured (reward.model)")
    return SentimentScorer(shared_classifier(ref, ctx.device, ctx.options.get("sentiment_batch_size", 64)))
