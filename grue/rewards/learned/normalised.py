"""A reward standardised like a learned one: mean 0 and variance 1 over the initial policy's samples.

A learned reward model is normalised over x ~ D, y ~ rho (Ziegler; grue.rewards.learned.training), so
its scale is one standard deviation of rho's samples. RL on the oracle itself (e.g. P(positive), whose
spread over rho's samples is a fraction of 1) meets the same KL coefficient at a smaller scale, i.e.
more strongly regularised. Wrapping the oracle here puts it on the learned reward's scale: before RL
the run samples NORMALISATION_QUERIES prompts of the train split, k = NORMALISATION_K continuations
each, with the rollout decoding of the initial policy, and fixes gain and bias so those samples score
mean 0, variance 1. They are written to the run directory (`reward_normalisation.json`, the samples
included), read back on resume, and recorded in results.json.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

import torch

from grue.data.sample import Sample
from grue.rewards.learned.rng import isolated_rng

NORMALISATION_FILE = "reward_normalisation.json"
NORMALISATION_QUERIES = 64  # x 4 continuations = 256 samples, as Ziegler's normalisation
NORMALISATION_K = 4


def initial_policy_samples(cfg: Any, policy: Any, train: Sequence[Sample]) -> tuple[list[Sample], list[str]]:
    """NORMALISATION_K continuations of NORMALISATION_QUERIES train prompts from `policy` with the rollout
    decoding, from fixed seeds (the same samples whenever asked again)."""
    from grue.rewards.learned.queries import query_samples, sample_candidates

    prompts = query_samples(train, NORMALISATION_QUERIES, seed=int(cfg.seed) * 1009 + 104729)
    with isolated_rng():
        torch.manual_seed(int(cfg.seed) * 1_000_003 + 104729)
        candidates = sample_candidates(policy, [s.prompt for s in prompts], cfg.rollout, NORMALISATION_K)
    return [s for s in prompts for _ in range(NORMALISATION_K)], [t for group in candidates for t in group]


class RhoNormalisedReward:
    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name
        self.gain: float | None = None
        self.bias: float | None = None

    def calibrate(self, cfg: Any, run_dir: Path, policy: Any, train: Sequence[Sample], say: Any) -> None:
        """Fix gain and bias from the initial policy's samples (or the run directory's record of them)."""
        if int(cfg.num_processes) > 1:  # every rank would sample and write it; not built (as label schedules)
            raise ValueError(f"reward={self.name} standardises over samples drawn in one process (num_processes=1)")
        path = Path(run_dir) / NORMALISATION_FILE
        if path.is_file():
            record = json.loads(path.read_text())
        else:
            record = self._measure(cfg, policy, train)
            from grue.storage.atomic import atomic_write_json

            atomic_write_json(path, record)
            say(f"reward {self.name}: {self.inner.name} has mean {record['mean']:.4g} and std {record['std']:.4g} "
                f"over {len(record['samples'])} samples of the initial policy; standardised to mean 0, std 1")
        self.gain, self.bias = record["gain"], record["bias"]

    def _measure(self, cfg: Any, policy: Any, train: Sequence[Sample]) -> dict:
        return self.standardise(*initial_policy_samples(cfg, policy, train))

    def standardise(self, samples: Sequence[Sample], texts: Sequence[str]) -> dict:
        """The inner reward's mean and spread over these samples, and the gain and bias that standardise it."""
        raw = self.inner(samples, texts)
        mean = sum(raw) / len(raw)
        std = math.sqrt(sum((r - mean) ** 2 for r in raw) / len(raw))
        if not std > 0:
            raise ValueError(f"reward {self.inner.name} gives every sample of the initial policy the same score; "
                             "it cannot be normalised")
        return {"reward": self.inner.name, "mean": mean, "std": std, "gain": 1 / std, "bias": -mean / std,
                "samples": [{"sample_id": s.id, "generation": t, "raw": r} for s, t, r in zip(samples, texts, raw)]}

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        if self.gain is None:
            raise ValueError(f"reward={self.name} is standardised over the initial policy's samples inside an RL "
                             f"run; use reward={self.inner.name} elsewhere (e.g. as a labeler)")
        return [self.gain * r + self.bias for r in self.inner(samples, generations)]


def normalisation_fields(run_dir: Path) -> dict:
    """results.json's record of a normalised reward's scale (without the samples); empty otherwise."""
    path = Path(run_dir) / NORMALISATION_FILE
    if not path.is_file():
        return {}
    record = json.loads(path.read_text())
    return {"reward_normalisation": {"reward": record["reward"], "mean": record["mean"], "std": record["std"],
                                     "gain": record["gain"], "bias": record["bias"],
                                     "samples": len(record["samples"])}}
