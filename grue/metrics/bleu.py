"""Corpus BLEU (Papineni et al., 2002): ``bleu`` as RL4LMs reported it, ``bleu3``/``bleu4`` as CommonGen's.

- ``bleu``: BLEU-4 on whitespace-split, case-sensitive tokens, which is what RL4LMs fed the Hugging
  Face ``bleu`` metric (CNN/DM, WMT16, NarrativeQA tables). That metric is TF-NMT's ``compute_bleu``,
  whose brevity penalty counts the *shortest* reference of each sample, so ``bleu`` does too.
- ``bleu3`` / ``bleu4``: BLEU-3 / BLEU-4 on lower-cased word tokens with punctuation dropped, with the
  brevity penalty of the COCO caption scorer CommonGen's evaluation uses: the reference length
  *closest* to the hypothesis (ties: the shorter). CommonGen's official evaluation tokenises with
  spaCy; grue uses lower-cased regex word tokens with punctuation dropped
  (``grue.metrics.text.word_tokens``, no model download), so texts that spaCy splits differently
  (hyphens, apostrophes, numbers) can score slightly differently from the official script.
All are corpus statistics: clipped n-gram matches and totals are summed over the corpus before the
precisions are taken, there is no smoothing, and any n-gram order with no match makes the corpus BLEU 0.
Multiple references per sample are used together (counts clipped by the maximum over references).

The per-sample values are sentence BLEU with Lin & Och's add-one smoothing for n >= 2 (NLTK's
``method2``), since unsmoothed sentence BLEU is 0 for almost every short output and useless as a reward.
Empty hypotheses score 0; samples must have at least one reference.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.text import word_tokens

Tokenizer = Callable[[str], list[str]]
# Which reference length the brevity penalty counts for a sample: the one closest to the hypothesis
# (NLTK, COCO; ties go to the shorter) or the shortest one (TF-NMT / Hugging Face ``bleu``).
RefLengthRule = Literal["closest", "shortest"]


def ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass
class BleuStats:
    """Sufficient statistics of BLEU; they add up over samples."""

    max_n: int
    matches: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    hyp_len: int = 0
    ref_len: int = 0

    def __post_init__(self) -> None:
        self.matches = self.matches or [0] * self.max_n
        self.totals = self.totals or [0] * self.max_n

    def add(self, other: "BleuStats") -> None:
        for i in range(self.max_n):
            self.matches[i] += other.matches[i]
            self.totals[i] += other.totals[i]
        self.hyp_len += other.hyp_len
        self.ref_len += other.ref_len

    def up_to(self, max_n: int) -> "BleuStats":
        """The statistics of the orders 1..max_n only."""
        return BleuStats(max_n, self.matches[:max_n], self.totals[:max_n], self.hyp_len, self.ref_len)


def reference_length(hyp_len: int, ref_lens: Sequence[int], rule: RefLengthRule) -> int:
    """The reference length a sample adds to the corpus's brevity penalty under ``rule``."""
    if rule == "shortest":
        return min(ref_lens)
    return min(ref_lens, key=lambda length: (abs(length - hyp_len), length))


def sentence_stats(hyp: Sequence[str], refs: Sequence[Sequence[str]], max_n: int,
                   rule: RefLengthRule = "closest") -> BleuStats:
    stats = BleuStats(max_n, hyp_len=len(hyp))
    stats.ref_len = reference_length(len(hyp), [len(r) for r in refs], rule)
    for n in range(1, max_n + 1):
        hyp_counts = ngrams(hyp, n)
        max_ref: Counter[tuple[str, ...]] = Counter()
        for ref in refs:
            max_ref |= ngrams(ref, n)
        stats.matches[n - 1] = sum(min(c, max_ref[g]) for g, c in hyp_counts.items())
        stats.totals[n - 1] = sum(hyp_counts.values())
    return stats


def bleu_score(stats: BleuStats, smooth: bool = False) -> float:
    """BLEU from its statistics; ``smooth`` adds one to numerator and denominator for n >= 2."""
    if stats.hyp_len == 0:
        return 0.0
    log_precision = 0.0
    for i, (m, t) in enumerate(zip(stats.matches, stats.totals)):
        if smooth and i > 0:
            m, t = m + 1, t + 1
        if m == 0 or t == 0:
            return 0.0
        log_precision += math.log(m / t) / stats.max_n
    brevity = 1.0 if stats.hyp_len >= stats.ref_len else math.exp(1 - stats.ref_len / stats.hyp_len)
    return brevity * math.exp(log_precision)


def corpus_stats(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]], max_n: int,
                 rule: RefLengthRule = "closest") -> list[BleuStats]:
    """Each sample's BLEU statistics up to order ``max_n``."""
    return [sentence_stats(hyp, sample_refs, max_n, rule) for hyp, sample_refs in zip(hyps, refs)]


def bleu_value(samples: Sequence[BleuStats], max_n: int) -> MetricValue:
    """Corpus BLEU-``max_n`` and smoothed sentence BLEU of each sample, from statistics of order >= max_n
    (BLEU-3 and BLEU-4 on the same tokens share one set of n-gram counts)."""
    total = BleuStats(max_n)
    per_sample = []
    for stats in samples:
        stats = stats.up_to(max_n)
        per_sample.append(bleu_score(stats, smooth=True))
        total.add(stats)
    return MetricValue(corpus=bleu_score(total), per_sample=per_sample)


def corpus_bleu(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]],
                max_n: int, rule: RefLengthRule = "closest") -> MetricValue:
    return bleu_value(corpus_stats(hyps, refs, max_n, rule), max_n)


class BleuScorer:
    """bleu, bleu3 and bleu4 in one pass: each convention's tokens and n-gram counts are made once."""

    names = ("bleu", "bleu3", "bleu4")
    higher_is_better = {name: True for name in names}

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "bleu")
        coco = self._stats(inputs, word_tokens, "closest")
        return {"bleu": bleu_value(self._stats(inputs, str.split, "shortest"), 4),
                "bleu3": bleu_value(coco, 3), "bleu4": bleu_value(coco, 4)}

    @staticmethod
    def _stats(inputs: MetricInputs, tokenize: Tokenizer, rule: RefLengthRule) -> list[BleuStats]:
        hyps = [tokenize(g) for g in inputs.generations]
        refs = [[tokenize(r) for r in sample] for sample in inputs.references]
        return corpus_stats(hyps, refs, 4, rule)


@register(higher_is_better=BleuScorer.higher_is_better)
def build_bleu(ctx: MetricContext) -> BleuScorer:
    return BleuScorer()
