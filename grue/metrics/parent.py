"""PARENT (Dhingra et al., 2019) for table-to-text, written from the paper's definition with the word-overlap
entailment model, as configured in ToTTo's official evaluation.

Tables come from ``meta["table"]``: a list of (attribute, value) pairs, strings. ``meta["recall_table"]``
may give a different table for the recall term (ToTTo recalls against the highlighted cells only and
measures precision against those plus the page and section titles); it defaults to ``table``.
All text is lower-cased and tokenised with sacrebleu's 13a tokenizer, as the official script does.

For one prediction G, reference R and table T, with w(g) = share of the n-gram's tokens found among
T's value tokens (the probability that g is entailed by the table):
- entailed precision of order n: sum_g #G(g) [p(g) + (1 - p(g)) w(g)] / sum_g #G(g), with
  p(g) = min(1, #R(g) / #G(g)); 0 when G has no n-grams;
- reference recall of order n: sum_g #R(g) w(g) min(1, #G(g) / #R(g)) / sum_g #R(g) w(g); 1 when the
  denominator is 0;
- orders 2-4 that come out 0 are replaced by ``smoothing`` (1e-5); P and the reference recall are the
  geometric means over orders 1-4 (a zero first-order precision makes P 0; a zero recall becomes
  ``smoothing``);
- table recall: the mean over T's entries of LCS(value, G) / len(value) (``smoothing`` if 0);
- recall = R_ref^(1 - lambda) * R_table^lambda, where lambda is ``parent_lambda`` or, by default (as in
  ToTTo), 1 minus the table recall of the reference itself: the less of the table the reference says,
  the more the table counts;
- F = 2PR / (P + R).
With several references, the one giving the best F is used. The corpus value is the mean F. An empty
prediction scores 0; a table with no non-empty values contributes no table recall (lambda = 0).
"""
from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Any, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.lcs import lcs_length
from grue.metrics.references import require_references
from grue.metrics.registry import register

Table = list[tuple[list[str], list[str]]]
MAX_ORDER = 4


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def tokens(text: str) -> list[str]:
    return _tokenizer()(str(text).strip().lower()).split()


def parse_table(pairs: Sequence[Sequence[str]]) -> Table:
    return [(tokens(attribute), tokens(value)) for attribute, value in pairs]


def _ngrams(seq: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(seq[i : i + n]) for i in range(len(seq) - n + 1))


def table_recall(table: Table, text: Sequence[str]) -> float | None:
    """Mean share of each table value recovered (as a subsequence) by ``text``; None without values."""
    values = [v for _, v in table if v]
    if not values:
        return None
    return sum(lcs_length(v, text) / len(v) for v in values) / len(values)


def _geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


class Parent:
    def __init__(self, lambda_weight: float | None = None, smoothing: float = 1e-5) -> None:
        self.lambda_weight = lambda_weight
        self.smoothing = smoothing

    def score(self, prediction: Sequence[str], reference: Sequence[str], table: Table,
              recall_table: Table) -> tuple[float, float, float]:
        """(precision, recall, F) of one prediction against one reference and its table."""
        table_tokens = {t for _, value in table for t in value}

        def entailed(g: tuple[str, ...]) -> float:
            return sum(t in table_tokens for t in g) / len(g)

        precisions, recalls = [], []
        for n in range(1, MAX_ORDER + 1):
            pred, ref = _ngrams(prediction, n), _ngrams(reference, n)
            total = sum(pred.values())
            matched = sum(c * (min(1.0, ref[g] / c) + (1 - min(1.0, ref[g] / c)) * entailed(g)) for g, c in pred.items())
            precisions.append(matched / total if total else 0.0)
            weight = sum(c * entailed(g) for g, c in ref.items())
            found = sum(c * entailed(g) * min(1.0, pred[g] / c) for g, c in ref.items())
            recalls.append(found / weight if weight else 1.0)
        for n in range(1, MAX_ORDER):
            precisions[n] = precisions[n] or self.smoothing
            recalls[n] = recalls[n] or self.smoothing
        precision = 0.0 if precisions[0] == 0 else _geometric_mean(precisions)
        ref_recall = self.smoothing if recalls[0] == 0 else _geometric_mean(recalls)

        tab_recall = table_recall(recall_table, prediction)
        if tab_recall is None:
            recall = ref_recall
        else:
            lam = self.lambda_weight
            if lam is None:
                lam = 1.0 - (table_recall(recall_table, reference) or 0.0)
            recall = ref_recall ** (1 - lam) * (tab_recall or self.smoothing) ** lam
        f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
        return precision, recall, f

    def best_f(self, prediction: str, references: Sequence[str], table: Table, recall_table: Table) -> float:
        pred = tokens(prediction)
        return max(self.score(pred, tokens(r), table, recall_table)[2] for r in references)


class ParentScorer:
    names = ("parent",)
    higher_is_better = {"parent": True}

    def __init__(self, parent: Parent) -> None:
        self.parent = parent

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "parent")
        if inputs.generations and len(inputs.meta) != len(inputs.generations):
            raise ValueError("parent needs meta['table'] for every sample")
        values = []
        for gen, refs, meta in zip(inputs.generations, inputs.references, inputs.meta):
            if "table" not in meta:
                raise ValueError("parent needs meta['table'] (a list of (attribute, value) pairs)")
            table = parse_table(meta["table"])
            recall_table = parse_table(meta["recall_table"]) if "recall_table" in meta else table
            values.append(self.parent.best_f(gen, refs, table, recall_table))
        return {"parent": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=ParentScorer.higher_is_better)
def build_parent(ctx: MetricContext) -> ParentScorer:
    lam = ctx.options.get("parent_lambda")
    return ParentScorer(Parent(lambda_weight=None if lam is None else float(lam)))
