"""Corpus diversity of the generations: MSTTR, Distinct-n, Entropy-n and Unique-n (n = 1, 2).

These are the "naturalness" statistics RL4LMs took from GEM-metrics (MSTTR with a 100-token window,
NGramStats). They are properties of the whole generated corpus, so only corpus values are reported:
averaging per-sample distinct-n would reward short outputs and is not what the paper tabulates.

Tokenisation (documented because every value depends on it): GEM-metrics' ``list_tokenized_lower``,
i.e. NLTK's ``word_tokenize`` (Treebank conventions) with each token lower-cased afterwards;
grue.metrics.text.lower_treebank_tokens gives the same tokens without punkt's download. Contractions
split at the clitic and hyphenated words stay whole: "It doesn't, live-action!" ->
["it", "does", "n't", ",", "live-action", "!"]. Punctuation tokens count: grue reports GEM's keys
without the ``_nopunct`` suffix. n-grams never cross the boundary between
two generations; MSTTR works on the concatenation of all tokens (as GEM-metrics does).

Degenerate input (documented values, never an error):
- no tokens at all (no generations, or only empty strings): every metric is 0.0;
- fewer than ``window`` tokens in total: MSTTR is the type-token ratio of the tokens there are
  (one partial segment), because a corpus too small for one window still has a TTR;
- otherwise the last partial window is dropped, as in GEM-metrics.
Entropy is in bits (log base 2), which is what the paper's H1 ~ 8.7 / H2 ~ 13.7 imply.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.registry import register
from grue.metrics.text import lower_treebank_tokens

NAMES = ("msttr", "distinct_1", "distinct_2", "entropy_1", "entropy_2", "unique_1", "unique_2")


def tokenize(text: str) -> tuple[str, ...]:
    """The tokenisation every diversity statistic uses (see the module docstring)."""
    return lower_treebank_tokens(text)


def ngram_counts(token_lists: Iterable[Sequence[str]], n: int) -> Counter[tuple[str, ...]]:
    """Counts of the n-grams inside each token list (never spanning two lists)."""
    counts: Counter[tuple[str, ...]] = Counter()
    for tokens in token_lists:
        counts.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return counts


def msttr(tokens: Sequence[str], window: int = 100) -> float:
    """Mean type-token ratio over consecutive non-overlapping windows of ``window`` tokens."""
    if not tokens:
        return 0.0
    if len(tokens) < window:
        return len(set(tokens)) / len(tokens)
    full = len(tokens) // window
    ratios = [len(set(tokens[i * window : (i + 1) * window])) / window for i in range(full)]
    return sum(ratios) / full


def distinct(counts: Counter) -> float:
    """Distinct n-grams over all n-grams; 0.0 when there are none."""
    total = sum(counts.values())
    return len(counts) / total if total else 0.0


def entropy(counts: Counter) -> float:
    """Shannon entropy (bits) of the n-gram frequency distribution; 0.0 when there are none."""
    total = sum(counts.values())
    return -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0


def unique(counts: Counter) -> float:
    """How many n-grams occur exactly once in the whole corpus."""
    return float(sum(1 for c in counts.values() if c == 1))


class DiversityScorer:
    """All seven diversity statistics in one pass over the tokenised generations."""

    names = NAMES
    higher_is_better = {name: True for name in NAMES}

    def __init__(self, window: int = 100) -> None:
        if window < 1:
            raise ValueError("msttr window must be a positive number of tokens")
        self.window = window

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        token_lists = [tokenize(g) for g in inputs.generations]
        values = {"msttr": msttr([t for tokens in token_lists for t in tokens], self.window)}
        for n in (1, 2):
            counts = ngram_counts(token_lists, n)
            values[f"distinct_{n}"] = distinct(counts)
            values[f"entropy_{n}"] = entropy(counts)
            values[f"unique_{n}"] = unique(counts)
        return {name: MetricValue(corpus=value) for name, value in values.items()}


@register(higher_is_better=DiversityScorer.higher_is_better)
def build_diversity(ctx: MetricContext) -> DiversityScorer:
    """MSTTR window from ``msttr_window`` (default 100, as in the paper)."""
    return DiversityScorer(window=int(ctx.options.get("msttr_window", 100)))
