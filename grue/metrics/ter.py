"""Translation edit rate (Snover et al., 2006) with sacrebleu's Tercom rules, computed faster; same numbers.

TER is the number of edits (insertions, deletions, substitutions and shifts of a block of words) that
turns the hypothesis into a reference, over the reference length. sacrebleu approximates Tercom's
greedy search with fixed rules, and grue keeps every one of them because the rules decide the value:
- shifts are tried greedily, the best one applied, until none lowers the edit distance; a shift moves
  at most 10 words by at most 50 positions, only a block that is wrong in the hypothesis to a place
  where the reference is unmatched; candidates rank by gain, then length, then earliest start, then
  earliest target; after 1,000 evaluated candidates in all the search stops and that round's best
  shift is not applied;
- the edit distance is a Levenshtein distance over words restricted to a beam of 25 cells around the
  length-scaled diagonal (wider for very unequal lengths), ties broken towards substitution/match,
  then deletion, then insertion, and its alignment decides where shifts may go.
Three things make this faster than sacrebleu's own loop without changing any decision: the block
search only visits reference positions holding the block's first word; the matrix holds plain
integer costs (operations are derived along the final path only), with the rows of every hypothesis
prefix already computed reused (shifted candidates share their prefix with the hypothesis); and a
candidate's rows stop once they are past the moved block and bound its distance well enough, either
exactly (a constant offset from the hypothesis's rows) or as too large to beat the best shift so far
(see ``BeamEditDistance.rows``). tests/metrics/test_ter.py checks the values
against sacrebleu on a few hundred segments.
"""
from __future__ import annotations

import math
from typing import Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.parallel import default_workers, parallel_map
from grue.metrics.references import require_references
from grue.metrics.registry import register

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
MAX_CACHED_ROWS = 10_000  # memory bound only: an uncached row is recomputed to the same values
INFINITY = 10**16

# Edit operations of the hypothesis-by-reference matrix (hypothesis words are rows).
MATCH, SUBSTITUTE, DROP_HYP, TAKE_REF, UNDEFINED = range(5)

Words = Sequence[str]


class BeamEditDistance:
    """Beam-limited word edit distance to one reference, with the rows of hypothesis prefixes cached.

    Rows hold costs only: the operation of a cell is needed just along the final path (``alignment``)
    and follows from the costs around it by the same preference order."""

    def __init__(self, ref: Words) -> None:
        self.ref = list(ref)
        self.width = len(ref) + 1
        self.first_row = list(range(self.width))
        self.cache: dict[str, tuple[dict, list[int]]] = {}
        self.cached_rows = 0

    def rows(self, hyp: Words, base: list[list[int]] | None = None, same_from: int = 0,
             at_most: float = math.inf) -> tuple[list[list[int]], int | None]:
        """(the cost rows of the matrix of ``hyp``, reusing cached prefix rows; None).

        ``base`` may hold the full rows of a hypothesis of the same length that equals ``hyp`` from
        word ``same_from`` on (the hypothesis a shift candidate was made from). From there on the words
        and the beam (a function of position and lengths) are the same, and the recurrence takes minima
        of neighbours plus costs that depend only on the words, so if a row exceeds the base's row by
        at least d (at most D) on every cell, every later row does too, the last cell included. Then:
        - d == D: the distance is the base's plus d, known without the remaining rows;
        - the base's distance plus d exceeds ``at_most``: the caller has said it needs no exact value
          above ``at_most``.
        In both cases the rows computed so far and base distance + d are returned early."""
        rows = [self.first_row]
        node = self.cache
        for word in hyp:
            if word not in node:
                break
            node, costs = node[word]
            rows.append(costs)
        n_hyp, n_ref = len(hyp), len(self.ref)
        ratio = n_ref / n_hyp if n_hyp else 1
        beam = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH

        def span(i: int) -> tuple[int, int]:  # the columns row i computes
            diagonal = math.floor(i * ratio)
            return max(0, diagonal - beam), self.width if i == n_hyp else min(self.width, diagonal + beam)

        for i in range(len(rows), n_hyp + 1):
            if base is not None and i - 1 >= same_from:
                least, greatest = offset_bounds(rows[-1], base[i - 1], *span(i - 1)) if i > 1 else (0, 0)
                if least == greatest or base[-1][-1] + least > at_most:
                    return rows, int(least)
            low, high = span(i)
            rows.append(self._row(hyp[i - 1], rows[-1], low, high))
            if self.cached_rows < MAX_CACHED_ROWS:
                node = node.setdefault(hyp[i - 1], ({}, rows[-1]))[0]
                self.cached_rows += 1
        return rows, None

    def _row(self, word: str, above: list[int], low: int, high: int) -> list[int]:
        """Costs of the row of hypothesis word ``word``, computed on columns [low, high) only; cells
        outside stay unreachable (INFINITY)."""
        costs = [INFINITY] * self.width
        start = low
        if low == 0:
            costs[0] = above[0] + 1
            start = 1
        left = costs[start - 1]
        new_costs = []
        for ref_word, diagonal, up in zip(self.ref[start - 1 : high - 1], above[start - 1 : high - 1], above[start:high]):
            cost = diagonal if word == ref_word else diagonal + 1
            if up + 1 < cost:
                cost = up + 1
            if left + 1 < cost:
                cost = left + 1
            if cost > INFINITY:  # a cell no path reaches stays unreachable
                cost = INFINITY
            new_costs.append(cost)
            left = cost
        costs[start:high] = new_costs
        return costs

    def distance(self, hyp: Words, base: list[list[int]] | None = None, same_from: int = 0,
                 at_most: float = math.inf) -> int:
        """Edit distance of ``hyp``; where it exceeds ``at_most``, possibly only a lower bound that
        exceeds it (see ``rows`` for ``base``, ``same_from`` and ``at_most``)."""
        rows, offset = self.rows(hyp, base, same_from, at_most)
        return rows[-1][-1] if offset is None else base[-1][-1] + offset

    def _operation(self, rows: list[list[int]], hyp: Words, i: int, j: int) -> int:
        """The operation sacrebleu records at cell (i, j): the first of match/substitution, DROP_HYP,
        TAKE_REF that reaches the cell's cost."""
        if i == 0:
            return TAKE_REF
        if j == 0:
            return DROP_HYP
        cost = rows[i][j]
        if cost >= INFINITY:
            return UNDEFINED
        same = hyp[i - 1] == self.ref[j - 1]
        if rows[i - 1][j - 1] + (0 if same else 1) == cost:
            return MATCH if same else SUBSTITUTE
        return DROP_HYP if rows[i - 1][j] + 1 == cost else TAKE_REF

    def alignment(self, hyp: Words, rows: list[list[int]]) -> tuple[int, dict[int, int], list[int], list[int]]:
        """Distance, and from the optimal path through ``hyp``'s full ``rows``: the hypothesis position
        each reference position is aligned with (-1 before the first word), and the error flags of
        both sides."""
        path = []
        i, j = len(hyp), len(self.ref)
        while i > 0 or j > 0:
            op = self._operation(rows, hyp, i, j)
            path.append(op)
            if op in (MATCH, SUBSTITUTE):
                i, j = i - 1, j - 1
            elif op == TAKE_REF:
                j -= 1
            elif op == DROP_HYP:
                i -= 1
            else:
                raise RuntimeError("TER edit path left the beam")
        align: dict[int, int] = {}
        ref_err: list[int] = []
        hyp_err: list[int] = []
        h = r = -1
        for op in reversed(path):
            if op == DROP_HYP:
                h += 1
                hyp_err.append(1)
                continue
            r += 1
            if op == TAKE_REF:
                ref_err.append(1)
            else:
                h += 1
                hyp_err.append(int(op == SUBSTITUTE))
                ref_err.append(int(op == SUBSTITUTE))
            align[r] = h
        return rows[-1][-1], align, ref_err, hyp_err


def offset_bounds(row: list[int], base_row: list[int], low: int, high: int) -> tuple[float, float]:
    """(least, greatest) amount by which ``row`` exceeds ``base_row`` on the columns [low, high) (both
    rows are unreachable outside them: same position, same beam). A cell unreachable in ``row`` only
    exceeds by +infinity, one unreachable in ``base_row`` only by -infinity."""
    row, base_row = row[low:high], base_row[low:high]
    if row == base_row:
        return 0, 0
    least, greatest = math.inf, -math.inf
    for a, b in zip(row, base_row):
        if a >= INFINITY or b >= INFINITY:
            if a == b:
                continue
            difference = math.inf if a >= INFINITY else -math.inf
        else:
            difference = a - b
        if difference < least:
            least = difference
        if difference > greatest:
            greatest = difference
    return least, greatest


def matching_blocks(hyp: Words, ref: Words):
    """(hyp start, ref start, length) of every common block, in sacrebleu's order: by hypothesis start,
    then reference start, then length (every prefix of a match of up to MAX_SHIFT_SIZE words)."""
    where: dict[str, list[int]] = {}
    for position, word in enumerate(ref):
        where.setdefault(word, []).append(position)
    n_hyp, n_ref = len(hyp), len(ref)
    for start_h, word in enumerate(hyp):
        for start_r in where.get(word, ()):
            if abs(start_r - start_h) > MAX_SHIFT_DIST:
                continue
            length = 0
            while length < MAX_SHIFT_SIZE and hyp[start_h + length] == ref[start_r + length]:
                length += 1
                yield start_h, start_r, length
                if start_h + length == n_hyp or start_r + length == n_ref:
                    break


def shifted(words: list[str], start: int, length: int, target: int) -> list[str]:
    """``words`` with the block at ``start`` moved before position ``target`` (sacrebleu's convention)."""
    block = words[start : start + length]
    if target < start:
        return words[:target] + block + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + block + words[target:]
    return words[:start] + words[start + length : length + target] + block + words[length + target :]


def unchanged_from(start: int, length: int, target: int) -> int:
    """The first position from which ``shifted(words, start, length, target)`` equals ``words``."""
    if target < start:
        return start + length
    if target > start + length:
        return target
    return length + target


def best_shift(hyp: list[str], ref: Words, ed: BeamEditDistance, checked: int) -> tuple[int, list[str], int]:
    """(gain, shifted hypothesis, candidates evaluated so far) of the best single shift."""
    base, _ = ed.rows(hyp)
    before, align, ref_err, hyp_err = ed.alignment(hyp, base)
    best: tuple | None = None
    for start_h, start_r, length in matching_blocks(hyp, ref):
        if not any(hyp_err[start_h : start_h + length]) or not any(ref_err[start_r : start_r + length]):
            continue  # only move a wrong block to where the reference is unmatched
        if start_h <= align[start_r] < start_h + length:
            continue  # not within itself
        previous = -1
        for offset in range(-1, length):
            if start_r + offset == -1:
                target = 0
            elif start_r + offset in align:
                target = align[start_r + offset] + 1
            else:
                break
            if target == previous:
                continue
            previous = target
            candidate_words = shifted(hyp, start_h, length, target)
            same_from = unchanged_from(start_h, length, target)
            # A candidate matters only if it gains at least 1 and beats the best so far (on equal
            # gain, by the later keys): a distance above that is not needed exactly.
            if best is None:
                needed = 1
            else:
                needed = max(1, best[0] if (length, -start_h, -target) > best[1:4] else best[0] + 1)
            distance = ed.distance(candidate_words, base, same_from, at_most=before - needed)
            candidate = (before - distance, length, -start_h, -target, candidate_words)
            checked += 1
            if best is None or candidate > best:
                best = candidate
        if checked >= MAX_SHIFT_CANDIDATES:
            break
    if best is None:
        return 0, hyp, checked
    return best[0], best[4], checked


def translation_edit_rate(hyp: Words, ref: Words) -> tuple[int, int]:
    """(number of edits, reference length) of one hypothesis against one reference, both tokenised."""
    if not ref:
        return len(hyp), 0
    ed = BeamEditDistance(ref)
    words, shifts, checked = list(hyp), 0, 0
    while True:
        gain, moved, checked = best_shift(words, ref, ed, checked)
        if checked >= MAX_SHIFT_CANDIDATES or gain <= 0:
            break
        shifts += 1
        words = moved
    return shifts + ed.distance(words), len(ref)


def segment_statistics(hyp: Words, refs: Sequence[Words]) -> tuple[int, float]:
    """sacrebleu's TER statistics of a segment: the fewest edits over the references, and their mean length."""
    results = [translation_edit_rate(hyp, ref) for ref in refs]
    return min(edits for edits, _ in results), sum(length for _, length in results) / len(refs)


def ter_value(edits: float, ref_length: float) -> float:
    """TER from (summed) statistics; an empty reference scores 1 against any word, 0 against none."""
    if ref_length > 0:
        return edits / ref_length
    return 1.0 if edits > 0 else 0.0


def _segment(pair: tuple[list[str], list[list[str]]]) -> tuple[int, float]:
    return segment_statistics(*pair)


class TerScorer:
    """``ter`` (lower is better): corpus TER from summed segment statistics, as sacrebleu sums them, and
    each sample's own TER. Texts are tokenised by sacrebleu's Tercom tokenizer with its defaults
    (lower-cased, whitespace-split); samples are spread over ``workers`` processes."""

    names = ("ter",)
    higher_is_better = {"ter": False}

    def __init__(self, workers: int) -> None:
        from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

        self.tokenizer = TercomTokenizer()
        self.workers = workers

    def words(self, text: str) -> list[str]:
        return self.tokenizer(text.rstrip()).split()

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "ter")
        pairs = [(self.words(g), [self.words(r) for r in refs]) for g, refs in zip(inputs.generations, inputs.references)]
        stats = parallel_map(_segment, pairs, self.workers)
        corpus = ter_value(sum(e for e, _ in stats), sum(length for _, length in stats))
        return {"ter": MetricValue(corpus=corpus, per_sample=[ter_value(e, length) for e, length in stats])}


# The paper's reward is 1 - TER (grue_spec.md 2.5), not the -TER a lower-is-better metric gets by default.
@register(higher_is_better=TerScorer.higher_is_better, reward_from={"ter": lambda v: 1.0 - v})
def build_ter(ctx: MetricContext) -> TerScorer:
    """Option ``metric_workers``: processes for the shift search (default: the usable CPU cores)."""
    return TerScorer(int(ctx.options.get("metric_workers") or default_workers()))
