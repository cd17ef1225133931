"""Deterministic, seeded splitting shared by the loaders: the same seed gives the same splits to
supervised and RL runs alike."""
from __future__ import annotations

from typing import Sequence, TypeVar

T = TypeVar("T")


def seeded_order(n: int, seed: int) -> list[int]:
    """The permutation `datasets.Dataset.shuffle(seed=...)` uses: numpy's default_rng(seed)."""
    import numpy as np  # here, not at the top: `grue tasks` reaches this module and need not pay for numpy

    return np.random.default_rng(seed).permutation(n).tolist()


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    return [items[i] for i in seeded_order(len(items), seed)]


def cap(items: list[T], limit: int | None) -> list[T]:
    return items if limit is None else items[:limit]
