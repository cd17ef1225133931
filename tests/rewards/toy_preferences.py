"""A toy preference problem with a known oracle: candidates are word strings, the oracle counts
good words minus bad words. Small enough to train a tiny reward model on in seconds."""
from __future__ import annotations

import random
from typing import Sequence

from grue.rewards.learned.comparisons import Candidate, Comparison

GOOD = ["delight", "recommend", "highly", "finish"]
BAD = ["boring", "tedious", "mess", "wooden"]
NEUTRAL = ["the", "film", "plot", "cast", "park", "sun", "dogs", "acting"]


class WordOracle:
    """The 'human': prefers more good and fewer bad words."""

    name = "toy_words"

    def __call__(self, samples: Sequence, generations: Sequence[str]) -> list[float]:
        return [float(sum(w in GOOD for w in g.split()) - sum(w in BAD for w in g.split())) for g in generations]


def toy_queries(n: int, k: int, seed: int = 0) -> list[Comparison]:
    rng = random.Random(seed)
    words = GOOD + BAD + NEUTRAL * 2
    out = []
    for i in range(n):
        cands = tuple(Candidate(" " + " ".join(rng.choice(words) for _ in range(5)), "toy") for _ in range(k))
        out.append(Comparison(f"toy-{seed}-{i}", "Review:", cands, task="toy", sample_id=None))
    return out
