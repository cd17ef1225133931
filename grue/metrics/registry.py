"""Registry of scorers by metric name, and the one function runs call to score generations.

Adding a metric: a scorer (grue/metrics/base.py's `Scorer`) and a factory decorated with
`@register(higher_is_better={"name": bool})` in a module of this package, or in a plugin
(grue/plugins.py) for one from outside. The direction declared there is the only one: the board
orders by it and a lower-is-better metric used as a reward is turned around by it (`reward_from`
says how, when the paper defines the reward differently from the negated metric). Modules are found
by scanning this package (and the reward modules, which register the classifier metrics), never by a
hand-kept list. A user's function is a metric by reference, `python:module:function` or
`python:path/to/file.py:function`, its direction declared on the function (grue/extend/user_metric.py):
it is registered under the reference the first time a lookup names it.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional

from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue, Scorer
from grue.metrics.text import clear_text_caches

ScorerFactory = Callable[[MetricContext], Scorer]
RewardFrom = Callable[[float], float]


@dataclass(frozen=True)
class _Entry:
    names: tuple[str, ...]
    higher_is_better: dict[str, bool]
    factory: ScorerFactory
    reward_from: dict[str, RewardFrom] = field(default_factory=dict)
    not_rewards: dict[str, str] = field(default_factory=dict)  # name -> why it cannot be a reward


_BY_NAME: dict[str, _Entry] = {}
# Where scorers are registered: every module of these packages is imported on the first lookup.
_SCORER_PACKAGES = ("grue.metrics", "grue.rewards")


def register(higher_is_better: dict[str, bool], reward_from: Optional[Mapping[str, RewardFrom]] = None,
             not_rewards: Optional[Mapping[str, str]] = None) -> Callable[[ScorerFactory], ScorerFactory]:
    """Register a scorer factory for the metric names (keys of `higher_is_better`) it produces.

    `reward_from` maps a metric's corpus-free per-sample value to its reward when that is not the value
    itself (higher is better) or its negation (lower is better); `not_rewards` names metrics that
    cannot be a reward, with the reason (perplexity needs the model being trained)."""

    def deco(factory: ScorerFactory) -> ScorerFactory:
        entry = _Entry(tuple(higher_is_better), dict(higher_is_better), factory, dict(reward_from or {}),
                       dict(not_rewards or {}))
        for name in entry.names:
            if name in _BY_NAME and _BY_NAME[name].factory is not factory:
                raise ValueError(f"metric {name!r} registered twice")
            _BY_NAME[name] = entry
        return factory

    return deco


def _load_all() -> None:
    from grue.plugins import import_package_modules, load_plugins

    for package in _SCORER_PACKAGES:
        import_package_modules(package)
    load_plugins()


def _ensure_user_metric(name: str) -> None:
    """Register a python: reference under its own name (imported and its direction checked) on first use."""
    from grue.extend.python_ref import is_python_ref

    if is_python_ref(name) and name not in _BY_NAME:
        from grue.extend.user_metric import declared_direction, user_metric_factory

        register(higher_is_better={name: declared_direction(name)})(user_metric_factory(name))


def known_metrics() -> list[str]:
    _load_all()
    return sorted(_BY_NAME)


def higher_is_better(name: str) -> bool:
    _load_all()
    _ensure_user_metric(name)
    return _BY_NAME[name].higher_is_better[name]


def find_direction(name: str) -> Optional[bool]:
    """The declared direction of a metric, or None for a name no scorer here produces."""
    _load_all()
    entry = _BY_NAME.get(name)
    return entry.higher_is_better[name] if entry is not None else None


def reward_transform(name: str) -> RewardFrom:
    """How a metric's per-sample value becomes a reward to maximise: as declared, else itself when
    higher is better, else its negation. Refuses a metric that cannot be a reward."""
    _load_all()
    _ensure_user_metric(name)
    entry = _BY_NAME[name]
    if name in entry.not_rewards:
        raise MetricUnavailable(f"metric {name!r} cannot be a reward: {entry.not_rewards[name]}")
    if name in entry.reward_from:
        return entry.reward_from[name]
    return (lambda v: v) if entry.higher_is_better[name] else (lambda v: -v)


def reward_metrics() -> list[str]:
    """The metrics that can serve as a reward."""
    _load_all()
    return sorted(name for name, entry in _BY_NAME.items() if name not in entry.not_rewards)


def check_names(names: Iterable[str]) -> None:
    """Refuse names no scorer produces, suggesting close ones."""
    known = known_metrics()
    for name in names:
        _ensure_user_metric(name)
        if name not in known and name not in _BY_NAME:
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else f" Known: {', '.join(known)}."
            raise KeyError(f"unknown metric {name!r}.{hint}")


@dataclass
class ScorerSet:
    """The scorers needed for a list of metric names, built once and reused for every evaluation."""

    wanted: tuple[str, ...]
    scorers: list[Scorer]
    unavailable: dict[str, str]  # metric name -> why it cannot be computed here

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        """Every scorer on the same inputs; tokenisation they share is done once (grue.metrics.text)."""
        out: dict[str, MetricValue] = {}
        try:
            for scorer in self.scorers:
                values = scorer.compute(inputs)
                out.update({k: v for k, v in values.items() if k in self.wanted})
        finally:
            clear_text_caches()
        return out


def build_scorers(names: Iterable[str], ctx: MetricContext) -> ScorerSet:
    """Build each needed scorer once; record those that cannot run here instead of failing later."""
    names = tuple(dict.fromkeys(names))
    check_names(names)  # registers the python: references among them
    scorers: list[Scorer] = []
    unavailable: dict[str, str] = {}
    seen: set[int] = set()
    for name in names:
        entry = _BY_NAME.get(name)
        if entry is None:
            unavailable[name] = "not implemented in this version of grue"
            continue
        if id(entry) in seen:
            continue
        seen.add(id(entry))
        try:
            scorers.append(entry.factory(ctx))
        except MetricUnavailable as why:
            for produced in entry.names:
                if produced in names:
                    unavailable[produced] = str(why)
    return ScorerSet(names, scorers, unavailable)
