"""CIDEr-D (Vedantam et al., 2015), written from its definition, as the COCO/CommonGen evaluation scores it.

For each sample, the candidate and each reference become TF-IDF vectors of their 1- to 4-grams:
weight(g) = count(g) * (log N - log max(1, df(g))), where N is the number of samples in the corpus and
df(g) the number of samples whose references contain g (document frequencies come from the references
only). For each n, the similarity to one reference is
    sum_g min(c_g, r_g) * r_g / (|c| |r|) * exp(-(len_c - len_r)^2 / (2 sigma^2)),   sigma = 6,
with the candidate weights clipped by the reference ones ("-D": no reward for repeating an n-gram) and
a Gaussian penalty on the difference in length (counted in bigrams, as the reference code does; this
differs from a token count only for texts under two tokens). The sample score is the mean over n of the mean
over references, times 10; the corpus value is the mean over samples.

Every sample is its own document, identified by position: RL4LMs keyed them by prompt text, so samples
that shared a prompt collapsed into one. Tokens are lower-cased regex words with punctuation dropped
(``grue.metrics.text.word_tokens``, no model download); CommonGen's official evaluation tokenises with
spaCy instead, which splits hyphenated words and contractions differently. Documented edge cases: an empty candidate scores 0; a corpus of one sample
scores 0 (log N = 0 gives every n-gram zero weight), which is inherent to CIDEr's corpus IDF.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.text import word_tokens

Vector = list[dict[tuple[str, ...], float]]  # one sparse vector per n-gram order


def _counts(tokens: Sequence[str], max_n: int) -> list[Counter[tuple[str, ...]]]:
    return [Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)) for n in range(1, max_n + 1)]


class CiderD:
    """CIDEr-D over a corpus; ``n`` and ``sigma`` as in the paper (4 and 6)."""

    def __init__(self, n: int = 4, sigma: float = 6.0) -> None:
        self.n = n
        self.sigma = sigma

    def scores(self, candidates: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]]) -> list[float]:
        cand_counts = [_counts(c, self.n) for c in candidates]
        ref_counts = [[_counts(r, self.n) for r in refs] for refs in references]
        df: Counter[tuple[str, ...]] = Counter()
        for refs in ref_counts:
            df.update({g for counts in refs for order in counts for g in order})
        log_n = math.log(len(candidates)) if candidates else 0.0

        def vector(counts: list[Counter]) -> tuple[Vector, list[float], int]:
            vec = [{g: tf * (log_n - math.log(max(1.0, df[g]))) for g, tf in order.items()} for order in counts]
            norms = [math.sqrt(sum(w * w for w in order.values())) for order in vec]
            return vec, norms, sum(counts[1].values()) if len(counts) > 1 else sum(counts[0].values())

        out = []
        for cand, refs in zip(cand_counts, ref_counts):
            c_vec, c_norm, c_len = vector(cand)
            total = [0.0] * self.n
            for ref in refs:
                r_vec, r_norm, r_len = vector(ref)
                penalty = math.exp(-((c_len - r_len) ** 2) / (2 * self.sigma**2))
                for k in range(self.n):
                    if c_norm[k] == 0 or r_norm[k] == 0:
                        continue
                    dot = sum(min(w, r_vec[k].get(g, 0.0)) * r_vec[k].get(g, 0.0) for g, w in c_vec[k].items())
                    total[k] += dot / (c_norm[k] * r_norm[k]) * penalty
            out.append(10.0 * sum(total) / self.n / len(refs) if refs else 0.0)
        return out


class CiderScorer:
    names = ("cider",)
    higher_is_better = {"cider": True}

    def __init__(self, n: int, sigma: float) -> None:
        self.cider = CiderD(n, sigma)

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "cider")
        values = self.cider.scores([word_tokens(g) for g in inputs.generations],
                                   [[word_tokens(r) for r in refs] for refs in inputs.references])
        return {"cider": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=CiderScorer.higher_is_better)
def build_cider(ctx: MetricContext) -> CiderScorer:
    return CiderScorer(n=int(ctx.options.get("cider_n", 4)), sigma=float(ctx.options.get("cider_sigma", 6.0)))
