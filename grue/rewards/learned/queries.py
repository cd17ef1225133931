"""Queries (x, y_0..y_{k-1}): a task prompt and k continuations sampled from one model.

Ziegler samples y_i ~ rho(.|x) for x ~ D; here x is drawn from a task split and the candidates use
the run's rollout decoding (the distribution RL samples from). Queries are made in chunks, each from
its own seed, so a collection that is cut short and resumed yields the same queries.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

import torch

from grue.data.sample import Sample
from grue.rewards.learned.comparisons import Candidate, Comparison, append_comparisons, read_comparisons
from grue.rewards.learned.rng import isolated_rng

CHUNK = 16  # queries sampled and appended together


def query_samples(samples: Sequence[Sample], n: int, seed: int) -> list[Sample]:
    """n prompts: the split in a seeded order, cycled when n exceeds it."""
    if not samples:
        raise ValueError("no prompts to make queries from")
    order = list(samples)
    random.Random(seed).shuffle(order)
    return [order[i % len(order)] for i in range(n)]


def query_id(prefix: str, index: int) -> str:
    return f"{prefix}{index:06d}"


def sample_candidates(policy: Any, prompts: Sequence[str], gen_cfg: Any, k: int) -> list[list[str]]:
    """k sampled continuations per prompt, in one generate call (each prompt repeated k times)."""
    if not gen_cfg.do_sample:
        raise ValueError("queries need sampled candidates: the decoding config has do_sample=false")
    texts = policy.generate_text(policy.encode([p for p in prompts for _ in range(k)]), gen_cfg)
    return [texts[i * k:(i + 1) * k] for i in range(len(prompts))]


def make_queries(policy: Any, samples: Sequence[Sample], gen_cfg: Any, k: int, source: str, prefix: str,
                 seed: int, task: Optional[str] = None, chunk_size: int = CHUNK, start: int = 0,
                 progress: Optional[Callable[[int], None]] = None) -> Iterator[list[Comparison]]:
    """Queries for samples[start:], a chunk at a time (query i is numbered i; chunk c is sampled
    from seed (seed, c)). `start` must be a multiple of `chunk_size` when resuming."""
    if start % chunk_size:
        raise ValueError(f"resume point {start} is not a multiple of the chunk size {chunk_size}")
    for first in range(start, len(samples), chunk_size):
        chunk = samples[first:first + chunk_size]
        with isolated_rng():
            torch.manual_seed(seed * 1_000_003 + first // chunk_size)
            candidates = sample_candidates(policy, [s.prompt for s in chunk], gen_cfg, k)
        yield [Comparison(query_id(prefix, first + i), s.prompt, tuple(Candidate(t, source) for t in texts),
                          task=task, sample_id=s.id) for i, (s, texts) in enumerate(zip(chunk, candidates))]
        if progress is not None:  # queries of `samples` done so far, resumed ones included
            progress(first + len(chunk))


def extend_queries(path: Path, policy: Any, samples: Sequence[Sample], gen_cfg: Any, k: int, source: str, prefix: str,
                   seed: int, task: Optional[str] = None,
                   progress: Optional[Callable[[int], None]] = None) -> list[Comparison]:
    """The queries `prefix`000000.. for `samples` in the file at `path`: sampled and appended a chunk
    at a time, only those the file lacks (a cut-short collection continues where it stopped)."""
    def ours(records: Sequence[Comparison]) -> list[Comparison]:
        return [q for q in records if q.labeler is None and q.query_id.startswith(prefix)]

    have = {q.query_id for q in ours(read_comparisons(path))}
    start = len(have) - len(have) % CHUNK
    if progress is not None:
        progress(start)
    for chunk in make_queries(policy, samples, gen_cfg, k, source, prefix, seed, task, start=start, progress=progress):
        append_comparisons(path, [q for q in chunk if q.query_id not in have])
    return ours(read_comparisons(path))[:len(samples)]


def collect_queries(path: Path, policy: Any, cfg: Any, split: Sequence[Sample], n: int, k: int, source: str,
                    prefix: str, progress: Optional[Callable[[int], None]] = None) -> list[Comparison]:
    """n queries of k candidates from a run config's policy and rollout decoding, their prompts drawn from
    `split` in the config's seeded order, in the comparisons file at `path` (`grue label queries` and
    dpo.comparisons=auto both collect theirs here; a cut-short collection continues)."""
    samples = query_samples(split, n, seed=int(cfg.seed))
    return extend_queries(path, policy, samples, cfg.rollout, k, source, prefix, seed=int(cfg.seed), task=cfg.task,
                          progress=progress)
