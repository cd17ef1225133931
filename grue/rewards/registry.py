"""Rewards by name. A reward scores finished episodes; the RL core adds the per-token KL penalty.

One RL run optimises one reward (the paper runs one experiment per reward function), and every
run is still scored on the task's whole metric mix.
"""
from __future__ import annotations

import difflib
from typing import Any, Callable, Protocol, Sequence

from grue.data.sample import Sample


class Reward(Protocol):
    name: str

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]: ...


RewardFactory = Callable[[Any], Reward]  # (resolved run config) -> Reward
_FACTORIES: dict[str, RewardFactory] = {}


def register_reward(name: str) -> Callable[[RewardFactory], RewardFactory]:
    def deco(factory: RewardFactory) -> RewardFactory:
        _FACTORIES[name] = factory
        return factory

    return deco


def _load_all() -> None:
    import grue.rewards.metric_reward  # noqa: F401  (register on import)
    import grue.rewards.sentiment  # noqa: F401
    import grue.rewards.learned.reward  # noqa: F401


def reward_names() -> list[str]:
    _load_all()
    return sorted(_FACTORIES)


def check_reward(name: str) -> None:
    names = reward_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"Did you mean: {', '.join(close)}?" if close else f"Known: {', '.join(names)}."
        raise KeyError(f"unknown reward {name!r}. {hint}")


def build_named_reward(cfg: Any, name: str) -> Reward:
    """Another registered reward under this run's settings: a mock labeler's oracle, a composite's part."""
    check_reward(name)
    return _FACTORIES[name](cfg)


def build_reward(cfg: Any) -> Reward:
    """The run's reward; `reward.dense=critic` wraps it so it also gives per-token rewards (DRLC)."""
    check_reward(cfg.reward.name)
    reward = _FACTORIES[cfg.reward.name](cfg)
    if cfg.reward.dense == "critic":
        from grue.rewards.critic.build import dense_critic_reward

        reward = dense_critic_reward(cfg, reward)
    return reward
