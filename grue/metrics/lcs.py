"""Longest common subsequence of two token sequences, the core of every ROUGE-L variant.

``lcs_length`` is the bit-parallel algorithm of Allison & Dix (1986) as Hyyrö (2004) states it: one
big-integer step per token of the second sequence instead of a row of the O(m n) table, which is what
keeps ROUGE-L on long texts fast in pure Python (scripts/score_1000.py). ``lcs_positions`` needs the alignment itself
(summary-level ROUGE-L takes the union of alignments), so it fills the table and walks it back;
``union_lcs_hits`` is that summary-level count, shared by ROUGE-Lsum and py-rouge's ROUGE-L.
"""
from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of a longest common subsequence of ``a`` and ``b``."""
    if not a or not b:
        return 0
    where: dict[Hashable, int] = {}
    for i, token in enumerate(a):
        where[token] = where.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full  # bit i is 0 once a[i] is matched in the LCS so far (Hyyrö's V')
    for token in b:
        u = v & where.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def lcs_positions(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[int]:
    """Positions in ``a`` of one LCS of ``a`` and ``b``: walking back from the end, a match is taken
    whenever the tokens are equal, else the step that drops ``a``'s token when that keeps the length
    (the tie-break of py-rouge and of the ROUGE-1.5.5 script)."""
    m, n = len(a), len(b)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        row, above = table[i], table[i - 1]
        for j in range(1, n + 1):
            row[j] = above[j - 1] + 1 if a[i - 1] == b[j - 1] else max(above[j], row[j - 1])
    positions = []
    i, j = m, n
    while i and j:
        if a[i - 1] == b[j - 1]:
            positions.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
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
        union = sorted({pos for gen_sentence in generation for pos in lcs_positions(ref_sentence, gen_sentence)})
        for pos in union:
            if available[ref_sentence[pos]] > 0:
                available[ref_sentence[pos]] -= 1
                hits += 1
    return hits
