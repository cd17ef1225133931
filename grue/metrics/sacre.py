"""SacreBLEU and chrF through the sacrebleu library, on the 0-1 scale RL4LMs reported (score / 100).
(TER, with sacrebleu's rules but a faster search, is grue.metrics.ter.)

Each is its own scorer so a task that asks for chrF alone does not pay for BLEU's n-grams.
Multiple references per sample are passed as sacrebleu's reference streams; samples with fewer
references than the most get ``None`` in the missing streams, which sacrebleu treats as absent.
The BLEU tokenizer is ``sacrebleu_tokenize`` (default "13a"; the MT and dialogue configs use "intl").
Per-sample values are sacrebleu's sentence scores (BLEU with effective order and its default
exponential smoothing, as sacrebleu recommends for single sentences).
"""
from __future__ import annotations

from typing import Any, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register


def reference_streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """Per-sample reference lists -> sacrebleu's list of streams, padded with None."""
    width = max((len(r) for r in references), default=0)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]


class SacreScorer:
    """One sacrebleu metric object, scored on the corpus and on each sample.

    The segment statistics are extracted once and serve both: the corpus score aggregates all of
    them, each sample's score aggregates its own (what ``sentence_score`` does after extracting the
    same statistics again), so tokenisation and n-gram counting run once per text instead of twice.
    """

    def __init__(self, name: str, metric: Any, higher_is_better: bool, sentence_metric: Any = None) -> None:
        self.names = (name,)
        self.higher_is_better = {name: higher_is_better}
        self.metric = metric
        self.sentence_metric = sentence_metric or metric

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        name = self.names[0]
        require_references(inputs, name)
        if not inputs.generations:
            return {name: MetricValue(corpus=0.0, per_sample=[])}
        stats = self.metric._extract_corpus_statistics(list(inputs.generations), reference_streams(inputs.references))
        corpus = self.metric._aggregate_and_compute(stats).score / 100
        per_sample = [self.sentence_metric._aggregate_and_compute([s]).score / 100 for s in stats]
        return {name: MetricValue(corpus=corpus, per_sample=per_sample)}


@register(higher_is_better={"sacrebleu": True})
def build_sacrebleu(ctx: MetricContext) -> SacreScorer:
    from sacrebleu.metrics import BLEU

    tokenize = str(ctx.options.get("sacrebleu_tokenize", "13a"))
    return SacreScorer("sacrebleu", BLEU(tokenize=tokenize), True,
                       sentence_metric=BLEU(tokenize=tokenize, effective_order=True))


@register(higher_is_better={"chrf": True})
def build_chrf(ctx: MetricContext) -> SacreScorer:
    from sacrebleu.metrics import CHRF

    return SacreScorer("chrf", CHRF(), True)
