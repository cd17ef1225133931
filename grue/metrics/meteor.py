"""METEOR (Banerjee & Lavie, 2005) with NLTK, as the Hugging Face ``meteor`` metric computes it.

Per sample: NLTK's ``meteor_score`` (alpha 0.9, beta 3, gamma 0.5; exact, Porter-stem and WordNet
synonym matching; best over the sample's references) on Treebank tokens. The corpus value is the mean
over samples, as in the HF metric RL4LMs used. WordNet comes from an installed package or a local
directory (grue.metrics.wordnet), never from a download; without it the metric is unavailable.
Empty generations or references score 0.

Speed: NLTK looks up each hypothesis word's synsets and stems every word of every pair anew, which
was most of METEOR's time; the same few thousand words recur across an evaluation, so the scorer
memoises both per word (:class:`MemoisedWordNet`, :class:`MemoisedStemmer`). The look-ups are pure
functions of the word, so the scores are unchanged (tested against the plain NLTK call).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.text import treebank_tokens
from grue.metrics.wordnet import load_wordnet


# Distinct words kept per memo; an evaluation's vocabulary is far smaller, a long-lived scorer stays bounded.
WORD_MEMO_SIZE = 1 << 17


class MemoisedWordNet:
    """A WordNet reader whose ``synsets(word)`` answers are remembered per (word, pos)."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self.synsets = lru_cache(maxsize=WORD_MEMO_SIZE)(self._synsets)

    def _synsets(self, word: str, pos: str | None = None) -> list[Any]:
        return self._reader.synsets(word, pos)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)


class MemoisedStemmer:
    """NLTK's Porter stemmer (METEOR's default) with its answers remembered per word."""

    def __init__(self) -> None:
        from nltk.stem.porter import PorterStemmer

        self.stem = lru_cache(maxsize=WORD_MEMO_SIZE)(PorterStemmer().stem)


class MeteorScorer:
    names = ("meteor",)
    higher_is_better = {"meteor": True}

    def __init__(self, wordnet: Any, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> None:
        self.wordnet = MemoisedWordNet(wordnet)
        self.stemmer = MemoisedStemmer()
        self.params = {"alpha": alpha, "beta": beta, "gamma": gamma}

    def score_one(self, generation: str, references: list[str]) -> float:
        from nltk.translate.meteor_score import meteor_score

        hyp = treebank_tokens(generation)
        refs = [treebank_tokens(r) for r in references]
        if not hyp or not any(refs):
            return 0.0
        return float(meteor_score([r for r in refs if r], hyp, wordnet=self.wordnet, stemmer=self.stemmer,
                                  **self.params))

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "meteor")
        values = [self.score_one(g, list(refs)) for g, refs in zip(inputs.generations, inputs.references)]
        return {"meteor": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=MeteorScorer.higher_is_better)
def build_meteor(ctx: MetricContext) -> MeteorScorer:
    """Loads WordNet now, so a machine without it learns so before a run (MetricUnavailable)."""
    return MeteorScorer(load_wordnet(ctx.options.get("wordnet_dir")))
