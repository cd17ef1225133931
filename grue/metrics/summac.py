"""SummaC-ZS (Laban et al., 2022): zero-shot factual consistency of a summary with its document.

The document and the summary are split into sentences; an NLI model scores every (document sentence,
summary sentence) pair. For each summary sentence the best support over document sentences is kept:
max P(entailment), and with ``summac_use_con`` also max P(contradiction); the sentence score is the
entailment (``use_ent``), minus the contradiction when both are used, or 1 - contradiction alone. The
summary's score is the mean over its sentences; the corpus value is the mean over samples. RL4LMs'
CNN/DM setting is entailment only (``summac_use_con`` false), the default here.

Options: ``summac_model`` (an NLI classifier reference; default the SummaC paper's ViTC model
``tals/albert-xlarge-vitaminc-mnli``; its label names must include "entail..." and "contra..."),
``summac_use_ent`` / ``summac_use_con``, ``summac_batch_size`` (32). The document is ``meta["document"]``
when given, else the prompt. Sentence splitting is grue.metrics.text.split_sentences (SummaC used
punkt, which is a download). An empty summary or document scores 0.
"""
from __future__ import annotations

from typing import Any, Sequence

import torch

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.hf_models import classifier_logits, label_index, load_classifier
from grue.metrics.model_refs import metric_model
from grue.metrics.registry import register
from grue.metrics.text import split_sentences


class SummacZS:
    names = ("summaczs",)
    higher_is_better = {"summaczs": True}

    def __init__(self, tokenizer: Any, model: Any, use_ent: bool = True, use_con: bool = False,
                 batch_size: int = 32) -> None:
        if not (use_ent or use_con):
            raise ValueError("summaczs needs use_ent, use_con or both")
        self.tokenizer, self.model = tokenizer, model
        self.entail, self.contra = label_index(model, "entail"), label_index(model, "contra")
        self.use_ent, self.use_con = use_ent, use_con
        self.batch_size = batch_size

    def scores(self, documents: Sequence[str], summaries: Sequence[str]) -> list[float]:
        """SummaC-ZS of each (document, summary), all pairs of all samples scored in shared batches."""
        grids = [(split_sentences(d), split_sentences(s)) for d, s in zip(documents, summaries)]
        premises = [p for doc, summ in grids for p in doc for _ in summ]
        hypotheses = [h for doc, summ in grids for _ in doc for h in summ]
        probs = classifier_logits(self.tokenizer, self.model, premises, hypotheses, self.batch_size).softmax(-1)
        out, start = [], 0
        for doc, summ in grids:
            if not doc or not summ:
                out.append(0.0)
                continue
            grid = probs[start : start + len(doc) * len(summ)].reshape(len(doc), len(summ), -1)
            start += len(doc) * len(summ)
            ent, con = grid[..., self.entail].amax(0), grid[..., self.contra].amax(0)
            if self.use_ent and self.use_con:
                per_sentence = ent - con
            elif self.use_ent:
                per_sentence = ent
            else:
                per_sentence = 1 - con
            out.append(float(per_sentence.mean()))
        return out

    @torch.inference_mode()
    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        meta = inputs.meta or [{}] * len(inputs.generations)
        documents = [m.get("document", p) for m, p in zip(meta, inputs.prompts)]
        values = self.scores(documents, inputs.generations)
        return {"summaczs": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=SummacZS.higher_is_better)
def build_summaczs(ctx: MetricContext) -> SummacZS:
    ref = metric_model("summaczs", ctx.options)
    tokenizer, model = load_classifier(ref, ctx.device, "summaczs")
    return SummacZS(tokenizer, model, use_ent=bool(ctx.options.get("summac_use_ent", True)),
                    use_con=bool(ctx.options.get("summac_use_con", False)),
                    batch_size=int(ctx.options.get("summac_batch_size", 32)))
