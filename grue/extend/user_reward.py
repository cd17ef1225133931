"""A `python:` reference as the reward an RL run maximises.

The function sees the batch as the metrics do — prompts, generations, each sample's references and
meta — and returns one float per generation. A function that declares `higher_is_better = False` (a
metric reused as a reward) is negated: a reward is always maximised.
"""
from __future__ import annotations

from typing import Any, Sequence

from grue.data.sample import Sample
from grue.extend.python_ref import call_batched, load_callable


class UserReward:
    def __init__(self, ref: str) -> None:
        self.name = ref
        self.fn = load_callable(ref, "reward")
        self.sign = -1.0 if getattr(self.fn, "higher_is_better", True) is False else 1.0

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        values = call_batched(self.fn, f"reward {self.name!r}", [s.prompt for s in samples], generations,
                              [s.references for s in samples], [s.meta for s in samples])
        return [self.sign * v for v in values]


def user_reward_factory(ref: str) -> Any:
    """A reward factory (run config -> reward); the reference is imported and checked now."""
    load_callable(ref, "reward")
    return lambda cfg: UserReward(ref)
