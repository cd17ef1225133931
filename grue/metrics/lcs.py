"""Longest common subsequence of two token sequences, the core of every ROUGE-L variant.

``lcs_length`` is the bit-parallel algorithm of Allison & Dix (1986) as Hyyrö (2004) states it: one
big-integer step per token of the second sequence instead of a row of the O(m n) table, which is what
keeps ROUGE-L on long texts fast in pure Python (scripts/score_1000.py). ``lcs_positions`` needs the
alignment itself (summary-level ROUGE-L takes the union of alignments): it keeps every step's bit vector
and walks the table back through them. ``union_lcs_hits`` is that summary-level count, shared by
ROUGE-Lsum and py-rouge's ROUGE-L.
"""
from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence


def match_masks(a: Sequence[Hashable]) -> dict[Hashable, int]:
    """For each token of ``a``, the bit set of its positions (bit i for a[i])."""
    where: dict[Hashable, int] = {}
    for i, token in enumerate(a):
        where[token] = where.get(token, 0) | (1 << i)
    return where


def lcs_columns(a: Sequence[Hashable], b: Sequence[Hashable], where: dict[Hashable, int]) -> list[int]:
    """Hyyrö's bit vectors V'_0..V'_n, one per prefix b[:j]: bit i is 0 exactly when the LCS table's
    column j steps up at row i+1, so LCS(a[:i], b[:j]) is the number of 0 bits among the low i bits."""
    full = (1 << len(a)) - 1
    v = full
    columns = [v]
    for token in b:
        u = v & where.get(token, 0)
        v = ((v + u) | (v - u)) & full
        columns.append(v)
    return columns


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of a longest common subsequence of ``a`` and ``b``."""
    if not a or not b:
        return 0
    return len(a) - lcs_columns(a, b, match_masks(a))[-1].bit_count()


def lcs_positions(a: Sequence[Hashable], b: Sequence[Hashable],
                  where: dict[Hashable, int] | None = None) -> list[int]:
    """Positions in ``a`` of one LCS of ``a`` and ``b``: walking back from the end, a match is taken
    whenever the tokens are equal, else the step that drops ``a``'s token when that keeps the length
    (the tie-break of py-rouge and of the ROUGE-1.5.5 script). The table entries the walk compares are
    read from the bit vectors (a popcount each) instead of filling the m x n table, which was nearly
    all of ROUGE-Lsum's time; ``where`` (match_masks(a)) may be passed when ``a`` meets many ``b``."""
    if not a or not b:
        return []
    columns = lcs_columns(a, b, where if where is not None else match_masks(a))
    i, j = len(a), len(b)
    length = i - columns[j].bit_count()  # LCS(a[:i], b[:j]), kept as the walk moves
    positions = []
    while length:
        if a[i - 1] == b[j - 1]:
            positions.append(i - 1)
            i, j, length = i - 1, j - 1, length - 1
        # a non-match cell holds the larger of the cells above and to the left, so the step up keeps
        # the length exactly when LCS(a[:i-1], b[:j]) equals it (one popcount decides the step)
        elif (i - 1) - (columns[j] & ((1 << (i - 1)) - 1)).bit_count() == length:
            i -= 1
        else:
            j -= 1
    return positions[::-1]


def union_lcs_hits(reference: Sequence[Sequence[Hashable]], generation: Sequence[Sequence[Hashable]]) -> int:
    """Summary-level LCS hits (Lin 2004, section 3.2, as ROUGE-1.5.5 counts them): for each reference
    sentence, the union of its LCS positions with every generated sentence; each hit uses up one
    occurrence of its token in the generation, so no generated token is counted twice."""
    if len(reference) == 1 and len(generation) == 1:
        return lcs_length(reference[0], generation[0])  # one alignment never needs clipping
    available = Counter(token for sentence in generation for token in sentence)
    hits = 0
    for ref_sentence in reference:
        where = match_masks(ref_sentence)
        union = sorted({pos for gen_sentence in generation for pos in lcs_positions(ref_sentence, gen_sentence, where)})
        for pos in union:
            if available[ref_sentence[pos]] > 0:
                available[ref_sentence[pos]] -= 1
                hits += 1
    return hits
