"""ROUGE F-measures (Lin, 2004) exactly as Google's rouge-score computes them with Porter stemming.

- ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum``: per sample, the best F over the sample's references
  (what the Hugging Face ``rouge`` metric does with several references; RL4LMs kept only the first);
  the corpus value is the mean over samples (the bootstrap "mid" RL4LMs reported is that mean up to
  resampling noise). ``rougeLsum`` is summary-level LCS over sentences: both texts are split into
  sentences (grue.metrics.text.split_sentences, no punkt download), which is what rouge-score does
  with newline-separated sentences; without that step it silently equals rougeL.
Empty texts score 0. NarrativeQA's ``rougeL_max`` is py-rouge's variant of ROUGE-L: grue.metrics.rouge_l_max.

The scoring is rouge-score's, written out so that each text is tokenised and stemmed once per
evaluation (rouge-score redoes it for every reference and every ROUGE type) and LCS lengths come from
the bit-parallel algorithm (grue.metrics.lcs): tokens are the lower-cased [a-z0-9] runs, words longer
than 3 characters stemmed by NLTK's Porter stemmer; F = 2PR/(P+R). tests/metrics/test_sacre_rouge.py
checks the values against rouge-score itself.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.lcs import lcs_length, union_lcs_hits
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.text import split_sentences, text_cache

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")
_VALID = re.compile(r"^[a-z0-9]+$")

Tokens = tuple[str, ...]


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem import porter

    return porter.PorterStemmer()  # rouge-score's stemmer (NLTK's extended mode)


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    return _porter().stem(word) if len(word) > 3 else word


@text_cache
def rouge_tokens(text: str) -> Tokens:
    """rouge-score's tokens: lower-case, non-alphanumerics to spaces, words over 3 characters stemmed."""
    words = _SPACES.split(_NON_ALNUM.sub(" ", text.lower()))
    return tuple(stem for stem in map(_stem, words) if _VALID.match(stem))


@text_cache
def sentence_tokens(text: str) -> tuple[Tokens, ...]:
    """The tokens of each sentence (the text's tokens are their concatenation)."""
    return tuple(rouge_tokens(sentence) for sentence in split_sentences(text))


def f_measure(hits: int, generated: int, reference: int) -> float:
    """rouge-score's F1 of ``hits`` over ``generated`` (precision) and ``reference`` (recall) counts."""
    precision, recall = hits / generated, hits / reference
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def rouge_n(reference: Tokens, generation: Tokens, n: int) -> float:
    ref = Counter(reference[i : i + n] for i in range(len(reference) - n + 1))
    gen = Counter(generation[i : i + n] for i in range(len(generation) - n + 1))
    hits = sum(min(count, gen[gram]) for gram, count in ref.items())
    return f_measure(hits, max(sum(gen.values()), 1), max(sum(ref.values()), 1))


def rouge_l(reference: Tokens, generation: Tokens) -> float:
    if not reference or not generation:
        return 0.0
    return f_measure(lcs_length(reference, generation), len(generation), len(reference))


def rouge_lsum(reference: Sequence[Tokens], generation: Sequence[Tokens]) -> float:
    ref_len, gen_len = sum(map(len, reference)), sum(map(len, generation))
    if not ref_len or not gen_len:
        return 0.0
    return f_measure(union_lcs_hits(reference, generation), gen_len, ref_len)


def rouge_scores(reference: str, generation: str) -> tuple[float, float, float, float]:
    """(rouge1, rouge2, rougeL, rougeLsum) F of one generation against one reference."""
    ref_sentences, gen_sentences = sentence_tokens(reference), sentence_tokens(generation)
    ref, gen = sum(ref_sentences, ()), sum(gen_sentences, ())
    return rouge_n(ref, gen, 1), rouge_n(ref, gen, 2), rouge_l(ref, gen), rouge_lsum(ref_sentences, gen_sentences)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class RougeScorer:
    """The four standard ROUGE variants, best over references, mean over samples."""

    names = ROUGE_TYPES
    higher_is_better = {name: True for name in ROUGE_TYPES}

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "rouge")
        per_sample: list[list[float]] = [[] for _ in ROUGE_TYPES]
        for gen, refs in zip(inputs.generations, inputs.references):
            by_reference = [rouge_scores(ref, gen) for ref in refs]
            for k, values in enumerate(per_sample):
                values.append(max(scores[k] for scores in by_reference))
        return {name: MetricValue(corpus=_mean(values), per_sample=values) for name, values in zip(ROUGE_TYPES, per_sample)}


@register(higher_is_better=RougeScorer.higher_is_better)
def build_rouge(ctx: MetricContext) -> RougeScorer:
    return RougeScorer()
