"""Rewards by name. A reward scores finished episodes; the RL core adds the per-token KL penalty.

One RL run optimises one reward (the paper runs one experiment per reward function), and every
run is still scored on the task's whole metric mix.

Adding a reward: a factory `(run config) -> Reward` decorated with `@register_reward("name")` in a
module of this package, in a sub-package's `reward` module, or in a plugin (grue/plugins.py). Every
metric that can be a reward (grue.metrics.registry.reward_metrics) is one under its own name, with
the direction its registration declares; nothing to register for it. A user's function is a reward by
reference, `reward=python:module:function` or `python:path/to/file.py:function` (grue/extend/), imported
only when a config names it.
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Callable, Optional, Protocol, Sequence

from grue.data.sample import Sample


class Reward(Protocol):
    name: str

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]: ...


CRITIC_CACHE = "critic_cache"  # a run directory's folder of dense-critic judgements (grue/run/run_dir.py)
RewardFactory = Callable[[Any], Reward]  # (resolved run config) -> Reward
_FACTORIES: dict[str, RewardFactory] = {}


def register_reward(name: str) -> Callable[[RewardFactory], RewardFactory]:
    def deco(factory: RewardFactory) -> RewardFactory:
        _FACTORIES[name] = factory
        return factory

    return deco


def _load_all() -> None:
    """Import the modules that register rewards: this package's modules, each sub-package's `reward`
    module (once), and the plugins."""
    from grue.plugins import import_package_modules, load_plugins

    import_package_modules(__package__, subpackage_module="reward")
    load_plugins()


def _factory(name: str) -> RewardFactory | None:
    """A user's function (python: reference), a registered reward, else a metric that can be one, else None."""
    from grue.extend.python_ref import is_python_ref

    if is_python_ref(name):
        from grue.extend.user_reward import user_reward_factory

        return user_reward_factory(name)
    _load_all()
    if name in _FACTORIES:
        return _FACTORIES[name]
    from grue.metrics.registry import reward_metrics

    if name in reward_metrics():
        from grue.rewards.metric_reward import metric_reward_factory

        return metric_reward_factory(name, {name: 1.0})
    return None


def reward_names() -> list[str]:
    _load_all()
    from grue.metrics.registry import reward_metrics

    return sorted(set(_FACTORIES) | set(reward_metrics()))


def check_reward(name: str) -> None:
    """Refuse an unknown name with close ones; a python: reference is imported and its signature checked."""
    from grue.extend.python_ref import is_python_ref, load_callable

    if is_python_ref(name):
        load_callable(name, "reward")
        return
    names = reward_names()
    if name not in names:
        close = difflib.get_close_matches(name, names, n=3)
        hint = f"Did you mean: {', '.join(close)}?" if close else f"Known: {', '.join(names)}."
        raise KeyError(f"unknown reward {name!r}. {hint}")


def build_named_reward(cfg: Any, name: str) -> Reward:
    """Another registered reward under this run's settings: a mock labeler's oracle, a composite's part."""
    check_reward(name)
    return _factory(name)(cfg)


def build_reward(cfg: Any, run_dir: Optional[Path] = None) -> Reward:
    """The run's reward; `reward.dense=critic` wraps it so it also gives per-token rewards (DRLC),
    caching the critic's judgements in the run's directory (`run_dir`, which such a reward needs)."""
    check_reward(cfg.reward.name)
    reward = _factory(cfg.reward.name)(cfg)
    if cfg.reward.dense == "critic":
        from grue.rewards.critic.build import dense_critic_reward

        if run_dir is None:
            raise ValueError("reward.dense=critic caches its judgements in the run's directory: pass run_dir")
        reward = dense_critic_reward(cfg, reward, Path(run_dir) / CRITIC_CACHE)
    return reward
