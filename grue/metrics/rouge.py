"""ROUGE F-measures (Lin, 2004) with Google's rouge-score package and Porter stemming.

- ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum``: per sample, the best F over the sample's references
  (what the Hugging Face ``rouge`` metric does with several references; RL4LMs kept only the first);
  the corpus value is the mean over samples (the bootstrap "mid" RL4LMs reported is that mean up to
  resampling noise). ``rougeLsum`` is summary-level LCS over sentences: both texts are split into
  sentences (grue.metrics.text.split_sentences, no punkt download) and joined with newlines, which
  is what rouge-score expects; without that step it silently equals rougeL.
- ``rougeL_max``: NarrativeQA's score as UnifiedQA computed it with py-rouge: ROUGE-L F1 (alpha 0.5)
  with stemming, both texts cut to their first ``rouge_length_limit`` words (100), max over references.
Empty texts score 0.
"""
from __future__ import annotations

from typing import Any, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.text import split_sentences

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


def _with_sentence_newlines(text: str) -> str:
    return "\n".join(split_sentences(text))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class RougeScorer:
    """The four standard ROUGE variants, best over references, mean over samples."""

    names = ROUGE_TYPES
    higher_is_better = {name: True for name in ROUGE_TYPES}

    def __init__(self) -> None:
        from rouge_score import rouge_scorer

        self._scorer: Any = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "rouge")
        per_sample: dict[str, list[float]] = {name: [] for name in ROUGE_TYPES}
        for gen, refs in zip(inputs.generations, inputs.references):
            scores = self._scorer.score_multi([_with_sentence_newlines(r) for r in refs],
                                              _with_sentence_newlines(gen))
            for name in ROUGE_TYPES:
                per_sample[name].append(scores[name].fmeasure)
        return {name: MetricValue(corpus=_mean(values), per_sample=values) for name, values in per_sample.items()}


class RougeLMaxScorer:
    """ROUGE-L F1 on length-limited texts, maximised over references."""

    names = ("rougeL_max",)
    higher_is_better = {"rougeL_max": True}

    def __init__(self, length_limit: int) -> None:
        from rouge_score import rouge_scorer

        self._scorer: Any = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
        self.length_limit = length_limit

    def _cut(self, text: str) -> str:
        return " ".join(text.split()[: self.length_limit])

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "rougeL_max")
        values = [max(self._scorer.score(self._cut(ref), self._cut(gen))["rougeL"].fmeasure for ref in refs)
                  for gen, refs in zip(inputs.generations, inputs.references)]
        return {"rougeL_max": MetricValue(corpus=_mean(values), per_sample=values)}


@register(higher_is_better=RougeScorer.higher_is_better)
def build_rouge(ctx: MetricContext) -> RougeScorer:
    return RougeScorer()


@register(higher_is_better=RougeLMaxScorer.higher_is_better)
def build_rouge_l_max(ctx: MetricContext) -> RougeLMaxScorer:
    return RougeLMaxScorer(length_limit=int(ctx.options.get("rouge_length_limit", 100)))
