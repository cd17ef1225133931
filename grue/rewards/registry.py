"""Rewards by name. A reward scores finished episodes; the RL core adds the per-token KL penalty.

One RL run optimises one reward (the paper runs one experiment per reward function), and every
run is still scored on the task's whole metric mix.

Adding a reward: a factory `(run config) -> Reward` decorated with `@register_reward("name")` in a
module of this package or a sub-package, and its name with that module in `BUILTIN` below (named
lazily, as the algorithms and metrics are: listing rewards and checking a config's `reward=` import no
reward module, several of which load torch; tests/rewards/test_registry_lazy.py checks the table
against the modules); or in a plugin (grue/plugins.py), which may not take a built-in reward's name or
a metric's (nor one registered already) unless it passes `replace=True`. Every metric that can be a
reward (grue.metrics.registry.reward_metrics) is one under its own name, with the direction its
registration declares; nothing to register for it. A user's function is a reward by reference,
`reward=python:module:function` or `python:path/to/file.py:function` (grue/extend/), imported only when
a config names it. A weighted mix of metrics is named inline, `reward=meteor@0.5+cider@0.5` (grue/rewards/mix.py).
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Callable, Optional, Protocol, Sequence

from grue.data.sample import Sample
from grue.lazy_builtins import builtin_registration


class Reward(Protocol):
    name: str

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]: ...


CRITIC_CACHE = "critic_cache"  # a run directory's folder of dense-critic judgements (grue/run/run_dir.py)
RewardFactory = Callable[[Any], Reward]  # (resolved run config) -> Reward

# Every built-in reward module -> the rewards it registers.
BUILTIN: dict[str, tuple[str, ...]] = {
    "grue.rewards.metric_reward": ("rouge_avg", "rouge_combined", "spider", "meteor_parent", "meteor_intent"),
    "grue.rewards.sentiment": ("sentiment", "sentiment_logit", "sentiment_logodds", "sentiment_normalised"),
    "grue.rewards.learned.reward": ("learned", "commongen_preference"),
}
_HOME = {name: module for module, names in BUILTIN.items() for name in names}
# Two tables, as in grue.metrics.registry: a test restoring `_FACTORIES` never loses a built-in reward
# whose module was imported meanwhile.
_BUILTIN_LOADED: dict[str, RewardFactory] = {}
_FACTORIES: dict[str, RewardFactory] = {}  # plugins' rewards and replacements


def register_reward(name: str, replace: bool = False) -> Callable[[RewardFactory], RewardFactory]:
    """Register a reward factory under `name`. A built-in reward's name, a built-in metric's (each is a
    reward under its own name) or one registered already is refused (grue.plugins.NameTaken) unless
    `replace=True` says it is meant."""
    def deco(factory: RewardFactory) -> RewardFactory:
        if _HOME.get(name) == getattr(factory, "__module__", None):
            _BUILTIN_LOADED[name] = factory
            return factory
        if not replace:
            _refuse_taken(name, factory)
        _FACTORIES[name] = factory
        return factory

    return deco


def _refuse_taken(name: str, factory: RewardFactory) -> None:
    from grue.metrics.registry import BUILTIN_NOT_REWARDS, builtin_module
    from grue.plugins import NameTaken

    if name in _FACTORIES and _FACTORIES[name] is not factory:
        raise NameTaken(f"reward {name!r} is registered twice; give one of them another name, or pass replace=True "
                        "to register_reward() to replace the first")
    metric_home = builtin_module(name) if name not in BUILTIN_NOT_REWARDS else None
    if name in _HOME or metric_home:
        what = f"reward ({_HOME[name]})" if name in _HOME else f"metric's reward ({metric_home})"
        raise NameTaken(f"reward {name!r} is a built-in {what}; register yours under another name, or pass "
                        "replace=True to register_reward() to replace the built-in one")


def _load_plugins() -> None:
    from grue.plugins import load_plugins

    load_plugins()


def _registered(name: str) -> RewardFactory | None:
    """A plugin's reward, else a built-in one (its module imported the first time), else None."""
    if name in _FACTORIES:
        return _FACTORIES[name]
    return builtin_registration(name, _HOME, _BUILTIN_LOADED, "reward", "grue.rewards.registry.BUILTIN")


def _factory(name: str) -> RewardFactory | None:
    """A user's function (python: reference), a registered reward, else a metric that can be one, else None."""
    from grue.extend.python_ref import is_python_ref

    if is_python_ref(name):
        from grue.extend.user_reward import user_reward_factory

        return user_reward_factory(name)
    from grue.rewards.mix import mix_weights

    mix = mix_weights(name)  # meteor@0.5+cider@0.5: a weighted mix of metrics (grue/rewards/mix.py)
    if mix is not None:
        from grue.rewards.metric_reward import metric_reward_factory

        return metric_reward_factory(name, mix)
    _load_plugins()
    registered = _registered(name)
    if registered is not None:
        return registered
    from grue.metrics.registry import reward_metrics

    if name in reward_metrics():
        from grue.rewards.metric_reward import metric_reward_factory

        return metric_reward_factory(name, {name: 1.0})
    return None


def reward_names() -> list[str]:
    _load_plugins()
    from grue.metrics.registry import reward_metrics

    return sorted(set(_HOME) | set(_FACTORIES) | set(reward_metrics()))


def check_reward(name: str) -> None:
    """Refuse an unknown name with close ones; a python: reference is imported and its signature checked."""
    from grue.extend.python_ref import is_python_ref, load_callable

    if is_python_ref(name):
        load_callable(name, "reward")
        return
    from grue.rewards.mix import mix_weights

    if mix_weights(name) is not None:  # each term checked, KeyError naming the bad one
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
