"""CommonGen concept coverage: the share of a sample's input concepts that its generation uses.

A concept counts as used when some word of the generation has the same lemma, so "dog" is covered by
"dogs" and "run" by "ran" (the official CommonGen evaluation lemmatises with spaCy; lemminflect, a
small offline package built on the same lexicon style, stands in for it). Lemmas of a word are the
word itself plus every lemma lemminflect gives for it under any part of speech, so "saw" covers both
"see" and "saw". Concepts may carry a CommonGen POS tag ("dog_N"), which is dropped.

Concepts come from ``meta["concepts"]`` (a list of strings). The value is a fraction in [0, 1]; the
paper's Table 12 prints it in percent. A sample without concepts is an error (the value would be
undefined), an empty generation covers nothing.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue
from grue.metrics.registry import register
from grue.metrics.text import word_tokens


@lru_cache(maxsize=100_000)
def lemmas(word: str) -> frozenset[str]:
    """The word and all its lemmas (any part of speech), lower-cased."""
    from lemminflect import getAllLemmas

    word = word.lower()
    found = {word}
    for by_pos in getAllLemmas(word).values():
        found.update(lemma.lower() for lemma in by_pos)
    return frozenset(found)


def concept_coverage(generation: str, concepts: Sequence[str]) -> float:
    """Fraction of ``concepts`` whose lemmas meet the lemmas of some word of ``generation``."""
    if not concepts:
        raise ValueError("coverage needs at least one concept per sample")
    generated: set[str] = set()
    for token in word_tokens(generation):
        generated |= lemmas(token)
    covered = 0
    for concept in concepts:
        words = word_tokens(concept.split("_")[0])  # multi-word concepts need all their words
        if words and all(lemmas(w) & generated for w in words):
            covered += 1
    return covered / len(concepts)


class CoverageScorer:
    names = ("coverage",)
    higher_is_better = {"coverage": True}

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        if inputs.generations and len(inputs.meta) != len(inputs.generations):
            raise ValueError("coverage needs meta['concepts'] for every sample")
        values = [concept_coverage(g, m.get("concepts") or []) for g, m in zip(inputs.generations, inputs.meta)]
        return {"coverage": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=CoverageScorer.higher_is_better)
def build_coverage(ctx: MetricContext) -> CoverageScorer:
    try:
        import lemminflect  # noqa: F401 - checked here so a missing install is reported before a run
    except ImportError as err:
        raise MetricUnavailable("coverage needs the lemminflect package: pip install lemminflect") from err
    return CoverageScorer()
