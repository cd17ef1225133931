"""BLEURT (Sellam et al., 2020): a learned regression score of a candidate given a reference.

The original is a TensorFlow package with its own checkpoints; the PyTorch ports of those checkpoints
are ordinary Hugging Face sequence-regression models (one output), so this scorer loads them with
transformers and feeds (reference, candidate) pairs, as BLEURT does. ``bleurt_checkpoint`` names one
(default ``Elron/bleurt-large-512``, the port of the bleurt-large-512 checkpoint the paper's ToTTo
setup used); with no such checkpoint on this machine the metric is unavailable with the reason.

Per sample: the score against the best reference (BLEURT scores one reference; the maximum is taken
over several). Scores are not bounded and can be negative. Corpus: the mean. Options:
``bleurt_batch_size`` (32).
"""
from __future__ import annotations

from typing import Any

from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue
from grue.metrics.hf_models import classifier_logits, load_classifier
from grue.metrics.model_refs import metric_model
from grue.metrics.references import require_references
from grue.metrics.registry import register


class BleurtScorer:
    names = ("bleurt",)
    higher_is_better = {"bleurt": True}

    def __init__(self, tokenizer: Any, model: Any, batch_size: int = 32) -> None:
        if model.config.num_labels != 1:
            raise MetricUnavailable(f"bleurt: the checkpoint has {model.config.num_labels} outputs, a BLEURT "
                                    "regression head has 1")
        self.tokenizer, self.model, self.batch_size = tokenizer, model, batch_size

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "bleurt")
        pairs = [(i, ref, gen) for i, (gen, refs) in enumerate(zip(inputs.generations, inputs.references))
                 for ref in refs]
        scores = classifier_logits(self.tokenizer, self.model, [r for _, r, _ in pairs], [g for _, _, g in pairs],
                                   self.batch_size)[:, 0].tolist()
        best = [float("-inf")] * len(inputs.generations)
        for (i, _, _), score in zip(pairs, scores):
            best[i] = max(best[i], score)
        return {"bleurt": MetricValue(corpus=sum(best) / len(best) if best else 0.0, per_sample=best)}


@register(higher_is_better=BleurtScorer.higher_is_better)
def build_bleurt(ctx: MetricContext) -> BleurtScorer:
    ref = metric_model("bleurt", ctx.options)
    tokenizer, model = load_classifier(ref, ctx.device, "bleurt")
    return BleurtScorer(tokenizer, model, int(ctx.options.get("bleurt_batch_size", 32)))
