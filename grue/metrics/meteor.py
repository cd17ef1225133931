"""METEOR (Banerjee & Lavie, 2005) with NLTK, as the Hugging Face ``meteor`` metric computes it.

Per sample: NLTK's ``meteor_score`` (alpha 0.9, beta 3, gamma 0.5; exact, Porter-stem and WordNet
synonym matching; best over the sample's references) on Treebank tokens. The corpus value is the mean
over samples, as in the HF metric RL4LMs used. WordNet comes from an installed package or a local
directory (grue.metrics.wordnet), never from a download; without it the metric is unavailable.
Empty generations or references score 0.
"""
from __future__ import annotations

from typing import Any

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.text import treebank_tokens
from grue.metrics.wordnet import load_wordnet


class MeteorScorer:
    names = ("meteor",)
    higher_is_better = {"meteor": True}

    def __init__(self, wordnet: Any, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> None:
        self.wordnet = wordnet
        self.params = {"alpha": alpha, "beta": beta, "gamma": gamma}

    def score_one(self, generation: str, references: list[str]) -> float:
        from nltk.translate.meteor_score import meteor_score

        hyp = treebank_tokens(generation)
        refs = [treebank_tokens(r) for r in references]
        if not hyp or not any(refs):
            return 0.0
        return float(meteor_score([r for r in refs if r], hyp, wordnet=self.wordnet, **self.params))

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "meteor")
        values = [self.score_one(g, list(refs)) for g, refs in zip(inputs.generations, inputs.references)]
        return {"meteor": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=MeteorScorer.higher_is_better)
def build_meteor(ctx: MetricContext) -> MeteorScorer:
    """Loads WordNet now, so a machine without it learns so before a run (MetricUnavailable)."""
    return MeteorScorer(load_wordnet(ctx.options.get("wordnet_dir")))
