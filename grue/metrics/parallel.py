"""Spread a per-sample, pure-Python computation over worker processes (TER's shift search).

The work of each item is independent and deterministic, so the values are the same as in one process
and come back in input order. Workers are forked (they inherit the loaded modules, so they start in
milliseconds); where fork is not available, or for a handful of items, everything runs in-process.
"""
from __future__ import annotations

import math
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Sequence, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_ITEMS = 64  # below this, starting workers costs more than it saves


def default_workers() -> int:
    """The CPU cores this process may use (at most 8)."""
    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def parallel_map(fn: Callable[[Item], Result], items: Sequence[Item], workers: int) -> list[Result]:
    """``[fn(x) for x in items]``, computed by up to ``workers`` processes; ``fn`` must be a module-level function."""
    if workers <= 1 or len(items) < MIN_ITEMS or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(item) for item in items]
    workers = min(workers, len(items))
    chunk = math.ceil(len(items) / (workers * 4))  # a few chunks per worker evens out unequal items
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(fn, items, chunksize=chunk))
