"""ROUGE F-measures (Lin, 2004) with Google's rouge-score package and Porter stemming.

- ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum``: per sample, the best F over the sample's references
  (what the Hugging Face ``rouge`` metric does with several references; RL4LMs kept only the first);
  the corpus value is the mean over samples (the bootstrap "mid" RL4LMs reported is that mean up to
  resampling noise). ``rougeLsum`` is summary-level LCS over sentences: both texts are split into
  sentences (grue.metrics.text.split_sentences, no punkt download) and joined with newlines, which
  is what rouge-score expects; without that step it silently equals rougeL.
Empty texts score 0. NarrativeQA's ``rougeL_max`` is py-rouge's variant of ROUGE-L: grue.metrics.rouge_l_max.
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


@register(higher_is_better=RougeScorer.higher_is_better)
def build_rouge(ctx: MetricContext) -> RougeScorer:
    return RougeScorer()
