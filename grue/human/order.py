"""Who judges what, in which order: seeded, so a study is reproducible from its seed.

Each judged item goes to `per_item` distinct raters of the pool (round robin over the shuffled
items, so loads differ by at most one item); attention checks go to every rater. Each rater's list
is shuffled with a generator seeded by the study seed and the rater id, and so is the order of
a comparison's candidates for that rater.
"""
from __future__ import annotations

import random
from collections.abc import Sequence


def _rng(*parts: object) -> random.Random:
    return random.Random(":".join(str(p) for p in parts))


def assign(item_ids: Sequence[str], gold_ids: Sequence[str], rater_ids: Sequence[str], per_item: int,
           seed: int) -> dict[str, list[str]]:
    """Each rater's items, in that rater's seeded order."""
    if per_item > len(rater_ids):
        raise ValueError(f"{per_item} raters per item need a pool of at least {per_item} raters, got {len(rater_ids)}")
    shuffled = list(item_ids)
    _rng(seed, "assign").shuffle(shuffled)
    lists: dict[str, list[str]] = {rater: list(gold_ids) for rater in rater_ids}
    slot = 0
    for item in shuffled:
        for _ in range(per_item):
            lists[rater_ids[slot % len(rater_ids)]].append(item)
            slot += 1
    for rater, items in lists.items():
        _rng(seed, "order", rater).shuffle(items)
    return lists


def candidate_order(seed: int, rater_id: str, item_id: str, k: int) -> list[int]:
    """The order in which `rater_id` sees the k candidates of `item_id`: shown position -> candidate index."""
    order = list(range(k))
    _rng(seed, "candidates", rater_id, item_id).shuffle(order)
    return order
