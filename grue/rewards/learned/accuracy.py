"""How well a reward model agrees with held-out labels: k-way accuracy and ROC AUC."""
from __future__ import annotations

from typing import Sequence


def choice_accuracy(scores: Sequence[Sequence[float]], chosen: Sequence[int]) -> float:
    """Share of queries whose highest-scored candidate is the chosen one (ties count as misses,
    so a constant model scores 0, not 1/k)."""
    hits = 0
    for row, b in zip(scores, chosen):
        best = max(row)
        hits += row[b] == best and sum(1 for s in row if s == best) == 1
    return hits / len(chosen) if chosen else float("nan")


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """Probability that a random positive outscores a random negative (ties count half): the
    Mann-Whitney form of the area under the ROC curve. NaN when one class is empty."""
    pos = [s for s, p in zip(scores, positive) if p]
    neg = [s for s, p in zip(scores, positive) if not p]
    if not pos or not neg:
        return float("nan")
    ranked = sorted((s, i) for i, s in enumerate(pos + neg))
    ranks = [0.0] * len(ranked)
    start = 0
    while start < len(ranked):  # average ranks over ties
        end = start
        while end + 1 < len(ranked) and ranked[end + 1][0] == ranked[start][0]:
            end += 1
        for j in range(start, end + 1):
            ranks[ranked[j][1]] = (start + end) / 2 + 1
        start = end + 1
    pos_rank_sum = sum(ranks[: len(pos)])
    return (pos_rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def candidate_auc(scores: Sequence[Sequence[float]], chosen: Sequence[int]) -> float:
    """ROC AUC of 'this candidate was chosen' over every candidate of every query; for pairwise
    comparisons this is the paper's preference-classifier figure (69.5 test ROC AUC, spec §2.2)."""
    flat = [s for row in scores for s in row]
    labels = [i == b for row, b in zip(scores, chosen) for i in range(len(row))]
    return roc_auc(flat, labels)
