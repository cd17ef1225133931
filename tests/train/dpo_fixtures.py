"""Comparisons files for DPO tests: k-way answers where a mock labeler always chose a praising sentence."""
from __future__ import annotations

import random
from pathlib import Path

from grue.rewards.learned.comparisons import Candidate, Comparison, append_comparisons

PRAISE = ["The film was a delight from start to finish.", "I highly recommend this movie to everyone!"]
SCORN = ["A tedious, boring mess that wastes its cast.", "The plot makes no sense and the acting is wooden.",
         "dogs run in the park while the sun sets"]


def praise_comparisons(path: Path, n: int, k: int = 4, seed: int = 0, task: str | None = None,
                       prompts: list[str] | None = None, ranked: bool = False) -> Path:
    """`n` answered k-way queries: one praising candidate among k - 1 others, in a random place, chosen.
    `ranked`: the labeler ranked them all (the praise first, the rest in a random order)."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        texts = [rng.choice(PRAISE)] + rng.sample(SCORN, k - 1)
        places = list(range(k))
        rng.shuffle(places)
        candidates = [None] * k
        for text, place in zip(texts, places):
            candidates[place] = Candidate(text, "tiny")
        prompt = prompts[i % len(prompts)] if prompts else f"Review number {i}:"
        query = Comparison(f"q{i:05d}", prompt, tuple(candidates), task=task)
        ranking = [places[0], *rng.sample(places[1:], k - 1)] if ranked else None
        records += [query, query.answer(places[0], "mock:praise", ranking=ranking)]
    append_comparisons(path, records)
    return path
