"""BERTScore F1 (Zhang et al., 2020) with the bert-score package and a configurable encoder.

Options: ``bertscore_model`` (a grue model reference: ``packaged:minilm`` on the mini profile, a hub id
such as ``roberta-large`` for English or ``bert-base-multilingual-cased`` for German on the paper
profile, or a local directory), ``bertscore_num_layers`` (which hidden layer's embeddings to match;
taken from bert-score's own table for the hub models it knows, required otherwise, e.g. 6 for MiniLM),
``bertscore_lang`` ("en"), ``bertscore_batch_size`` (64). No IDF weighting and no baseline rescaling,
as in RL4LMs (the baselines exist only for named hub models anyway).

Per sample: F1 against the best-matching reference (bert-score takes the maximum over a sample's
references); corpus: the mean. Texts longer than the encoder's limit are truncated by bert-score. An
empty (or blank) candidate scores 0, as bert-score itself would, and blank references are ignored; a
sample whose references are all blank scores 0.
The encoder is loaded once per process and scored in batches.
"""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.hf_models import resolve_or_unavailable
from grue.metrics.references import require_references
from grue.metrics.registry import register

DEFAULT_MODEL = "roberta-large"


def default_layers(ref: str) -> int | None:
    """bert-score's tuned layer for a hub model it knows (roberta-large: 17), else None."""
    from bert_score.utils import model2layers

    return model2layers.get(ref)


@lru_cache(maxsize=4)
def _scorer(path: str, num_layers: int, lang: str, batch_size: int, device: str) -> Any:
    from bert_score import BERTScorer

    return BERTScorer(model_type=path, num_layers=num_layers, lang=lang, batch_size=batch_size, device=device)


class BertScoreScorer:
    names = ("bertscore",)
    higher_is_better = {"bertscore": True}

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "bertscore")
        if not inputs.generations:
            return {"bertscore": MetricValue(corpus=0.0, per_sample=[])}
        logging.getLogger("transformers").setLevel(logging.ERROR)
        # Empty texts are settled here: bert-score's own path for them breaks on transformers 5.
        values = [0.0] * len(inputs.generations)
        todo = [(i, g, [r for r in refs if r.strip()]) for i, (g, refs) in
                enumerate(zip(inputs.generations, inputs.references)) if g.strip()]
        todo = [t for t in todo if t[2]]
        if todo:
            _, _, f1 = self.scorer.score([g for _, g, _ in todo], [refs for _, _, refs in todo])
            for (i, _, _), value in zip(todo, f1.tolist()):
                values[i] = float(value)
        return {"bertscore": MetricValue(corpus=sum(values) / len(values), per_sample=values)}


@register(higher_is_better=BertScoreScorer.higher_is_better)
def build_bertscore(ctx: MetricContext) -> BertScoreScorer:
    ref = str(ctx.options.get("bertscore_model", DEFAULT_MODEL))
    layers = ctx.options.get("bertscore_num_layers") or default_layers(ref)
    if not layers:
        raise ValueError(f"bertscore_num_layers is required for {ref!r} (bert-score has no default layer for it)")
    path = resolve_or_unavailable(ref, "bertscore")
    return BertScoreScorer(_scorer(path, int(layers), str(ctx.options.get("bertscore_lang", "en")),
                                   int(ctx.options.get("bertscore_batch_size", 64)), ctx.device))
