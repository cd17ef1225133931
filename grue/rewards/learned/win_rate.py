"""Win rate of one system's generations against another's, judged by labelers: each prompt's pair is
shown (in a random order) to `judges` labelers and the majority decides (Ziegler's evaluations and
the paper's 682 vs 587 preference comparison are of this kind). A two-sided exact binomial test
against 'equally preferred' gives the p-value; prompts where the judges split evenly are ties.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Mapping, Sequence

from grue.data.sample import Sample
from grue.rewards.learned.comparisons import Candidate, Comparison


@dataclass(frozen=True)
class WinRate:
    a_wins: int
    b_wins: int
    ties: int
    p_value: float

    @property
    def a_share(self) -> float:
        """A's share of the decided comparisons."""
        decided = self.a_wins + self.b_wins
        return self.a_wins / decided if decided else float("nan")


def binomial_two_sided(successes: int, trials: int) -> float:
    """P(an outcome at most as likely as `successes` of `trials` fair coin flips): the exact test."""
    if trials == 0:
        return 1.0
    log_p = [math.lgamma(trials + 1) - math.lgamma(i + 1) - math.lgamma(trials - i + 1) - trials * math.log(2)
             for i in range(trials + 1)]
    observed = log_p[successes]
    return min(1.0, sum(math.exp(lp) for lp in log_p if lp <= observed + 1e-9))


def pair_queries(samples: Sequence[Sample], a: Sequence[str], b: Sequence[str], a_source: str, b_source: str,
                 seed: int = 0) -> list[Comparison]:
    """One pairwise query per sample, the two systems in a seeded random order."""
    rng = random.Random(seed)
    out = []
    for sample, text_a, text_b in zip(samples, a, b):
        pair = [Candidate(text_a, a_source), Candidate(text_b, b_source)]
        if rng.random() < 0.5:
            pair.reverse()
        out.append(Comparison(f"win-{sample.id}", sample.prompt, tuple(pair), sample_id=sample.id))
    return out


def majority_win_rate(queries: Sequence[Comparison], answers: Sequence[Comparison], a_source: str) -> WinRate:
    """Each query's winner by majority of its answers; ties when the answers split evenly."""
    votes: dict[str, list[int]] = {q.query_id: [0, 0] for q in queries}
    by_id: Mapping[str, Comparison] = {q.query_id: q for q in queries}
    for answer in answers:
        if answer.query_id in votes:
            votes[answer.query_id][by_id[answer.query_id].candidates[answer.chosen].source != a_source] += 1
    a_wins = sum(v[0] > v[1] for v in votes.values())
    b_wins = sum(v[1] > v[0] for v in votes.values())
    ties = len(votes) - a_wins - b_wins
    return WinRate(a_wins, b_wins, ties, binomial_two_sided(a_wins, a_wins + b_wins))
