"""The parts of a reward made of several weighted components, carried from scoring to the advantage.

A metric mix (reward=meteor_parent, spider, ... : grue/rewards/metric_reward.py) is a weighted sum of
metrics. Its total is what every method trains on by default; GDPO-style normalisation
(`<group>.loss.reward_normalisation=per_component`, grue/train/rl/multi_reward.py) needs each component
apart, so the rollout asks a reward for its components when it has them (`score_components`) and keeps
them beside the total. A reward without components (a classifier, a user's function) is scored as before.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence


@dataclass(frozen=True)
class RewardComponents:
    """Per-component rewards of one round: `values[k][i]` is component k of episode i, already turned to the
    reward's direction (TER -> 1 - TER), and `weights[k]` its weight in the total."""

    names: tuple[str, ...]
    weights: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]

    def total(self) -> list[float]:
        """sum_k w_k r_k per episode, added component by component in their order (the metric mix's own
        arithmetic, so a total made here is the float the reward always returned)."""
        episodes = len(self.values[0]) if self.values else 0
        total = [0.0] * episodes
        for weight, column in zip(self.weights, self.values):
            total = [t + weight * v for t, v in zip(total, column)]
        return total


def score_episodes(reward_fn: Any, samples: Sequence[Any], generations: Sequence[str]
                   ) -> tuple[list[float], Optional[RewardComponents]]:
    """(each episode's reward, its components or None): one scoring pass either way."""
    if hasattr(reward_fn, "score_components"):
        components = reward_fn.score_components(samples, generations)
        return components.total(), components
    return list(reward_fn(samples, generations)), None
