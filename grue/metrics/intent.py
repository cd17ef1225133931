"""DailyDialog intent accuracy: does a dialogue-act classifier give the generation the reference's act?

The classifier (``intent_model``, default RL4LMs' ``rajkumarrrk/roberta-daily-dialog-intent-classifier``)
reads the last context utterance and the response. RL4LMs trained it on "utterance <EOU> response" but
evaluated it without the separator; here the input follows ``intent_template`` (default
"{context} <EOU> {generation}", the training format), so evaluation matches training.

Per sample, from ``meta``: ``intent`` is the gold act, as the classifier's label index (the task layer
maps DailyDialog's acts 1-4 to 0-3) or as a label name; ``context`` is the last utterance, else the
prompt's last segment after ``intent_history_separator`` ("<EOU>"). Per-sample values are 1.0/0.0; the
corpus value is the accuracy. An empty generation is classified like any other text.
"""
from __future__ import annotations

from typing import Any

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.hf_models import classifier_logits, load_classifier
from grue.metrics.model_refs import metric_model
from grue.metrics.registry import register


class IntentAccuracy:
    names = ("intent_accuracy",)
    higher_is_better = {"intent_accuracy": True}

    def __init__(self, tokenizer: Any, model: Any, template: str, separator: str, batch_size: int = 32) -> None:
        self.tokenizer, self.model = tokenizer, model
        self.template, self.separator = template, separator
        self.batch_size = batch_size
        self.by_name = {str(name).lower(): int(i) for i, name in model.config.id2label.items()}

    def _gold(self, value: Any) -> int:
        if isinstance(value, str) and not value.isdigit():
            if value.lower() not in self.by_name:
                raise ValueError(f"intent {value!r} is not one of the classifier's labels {sorted(self.by_name)}")
            return self.by_name[value.lower()]
        return int(value)

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        if inputs.generations and len(inputs.meta) != len(inputs.generations):
            raise ValueError("intent_accuracy needs meta['intent'] for every sample")
        texts, gold = [], []
        for prompt, gen, meta in zip(inputs.prompts, inputs.generations, inputs.meta):
            if "intent" not in meta:
                raise ValueError("intent_accuracy needs meta['intent'] (the reference's dialogue act)")
            context = meta.get("context") or prompt.split(self.separator)[-1]
            texts.append(self.template.format(context=context.strip(), generation=gen.strip()))
            gold.append(self._gold(meta["intent"]))
        predicted = classifier_logits(self.tokenizer, self.model, texts, batch_size=self.batch_size).argmax(-1)
        values = [float(p == g) for p, g in zip(predicted.tolist(), gold)]
        return {"intent_accuracy": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=IntentAccuracy.higher_is_better)
def build_intent_accuracy(ctx: MetricContext) -> IntentAccuracy:
    ref = metric_model("intent_accuracy", ctx.options)
    tokenizer, model = load_classifier(ref, ctx.device, "intent_accuracy")
    return IntentAccuracy(tokenizer, model, str(ctx.options.get("intent_template", "{context} <EOU> {generation}")),
                          str(ctx.options.get("intent_history_separator", "<EOU>")),
                          int(ctx.options.get("intent_batch_size", 32)))
