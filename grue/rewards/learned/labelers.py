"""The mock labeler: a fixed reward plays the human (Ziegler §3.1.1: it picks the candidate with
the higher oracle score), optionally noisy to mimic human disagreement.

Noise, one of:
- `temperature` T > 0: Boltzmann choice, P(i) proportional to exp(score_i / T);
- `error_rate` e: with probability e the pick is a uniformly random *other* candidate.
Every query draws from its own generator seeded by (seed, query id), so labels do not depend on
the order or the batches they are made in, and a resumed labelling gives the same answers.
"""
from __future__ import annotations

import math
import random
from typing import Any, Callable, Mapping, Optional, Sequence

from grue.data.sample import Sample
from pathlib import Path

from grue.rewards.learned.comparisons import Comparison, append_comparisons, latest_answers, read_comparisons, unanswered
from grue.rewards.registry import Reward

MOCK_PREFIX = "mock:"


class MockLabeler:
    def __init__(self, oracle: Reward, temperature: float = 0.0, error_rate: float = 0.0, seed: int = 0,
                 judge: str = "") -> None:
        """`judge` tells apart several noisy labelers of the same oracle (e.g. a majority of 3)."""
        if temperature < 0 or not 0 <= error_rate <= 1:
            raise ValueError("labeler noise: temperature must be >= 0 and error_rate within [0, 1]")
        if temperature > 0 and error_rate > 0:
            raise ValueError("labeler noise: give a temperature or an error rate, not both")
        self.oracle, self.temperature, self.error_rate, self.seed = oracle, temperature, error_rate, seed
        self.judge = judge

    @property
    def name(self) -> str:
        noise = f"@T{self.temperature:g}" if self.temperature else f"@e{self.error_rate:g}" if self.error_rate else ""
        return f"{MOCK_PREFIX}{self.oracle.name}{noise}" + (f"#{self.judge}" if self.judge else "")

    def pick(self, scores: Sequence[float], query_id: str) -> int:
        rng = random.Random(f"{self.seed}:{query_id}")
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))  # ties: the first shown
        if self.temperature > 0:
            top = max(scores)
            weights = [math.exp((s - top) / self.temperature) for s in scores]
            return rng.choices(range(len(scores)), weights=weights)[0]
        if self.error_rate > 0 and rng.random() < self.error_rate:
            return rng.choice([i for i in range(len(scores)) if i != best])
        return best

    def label(self, queries: Sequence[Comparison], samples: Mapping[str, Sample],
              progress: Optional[Callable[[int], None]] = None) -> list[Comparison]:
        """Answer the queries; `samples` (by id) give the oracle its references and meta."""
        flat_samples, flat_texts = [], []
        for q in queries:
            sample = samples.get(q.sample_id or "") or Sample(q.sample_id or q.query_id, q.prompt, ())
            flat_samples += [sample] * q.k
            flat_texts += [c.text for c in q.candidates]
        scores = self.oracle(flat_samples, flat_texts) if flat_texts else []
        answers, at = [], 0
        for q in queries:
            row = scores[at:at + q.k]
            at += q.k
            answers.append(q.answer(self.pick(row, q.query_id), self.name,
                                    notes="oracle scores " + " ".join(f"{s:.4g}" for s in row)))
        if progress is not None:
            progress(len(queries))
        return answers


def mock_labeler(cfg: Any, name: str, seed: Optional[int] = None, judge: str = "") -> MockLabeler:
    """The mock labeler a run config describes: reward `name` as the oracle under the config's settings, with the
    noise of reward.labeler_temperature / reward.labeler_error_rate, seeded by the run's seed unless `seed` says
    otherwise (`grue label mock` and dpo.comparisons=auto build theirs here)."""
    from grue.rewards.registry import build_named_reward

    return MockLabeler(build_named_reward(cfg, name), cfg.reward.labeler_temperature, cfg.reward.labeler_error_rate,
                       seed=int(cfg.seed) if seed is None else seed, judge=judge)


def label_file(labeler: MockLabeler, queries: Sequence[Comparison], path: Path, samples: Mapping[str, Sample],
               chunk: int = 16, progress: Optional[Callable[[int], None]] = None) -> list[Comparison]:
    """Answer the queries this labeler has not answered in the comparisons file at `path`, appending a
    chunk at a time; returns its latest answers to `queries`."""
    todo = unanswered(queries, read_comparisons(path), labeler.name)
    for first in range(0, len(todo), chunk):
        append_comparisons(path, labeler.label(todo[first:first + chunk], samples, progress))
    wanted = {q.query_id for q in queries}
    return [a for a in latest_answers(read_comparisons(path)) if a.labeler == labeler.name and a.query_id in wanted]
