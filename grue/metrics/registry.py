"""Registry of scorers by metric name, and the one function runs call to score generations.

Adding a metric: a scorer (grue/metrics/base.py's `Scorer`) and a factory decorated with
`@register(higher_is_better={"name": bool})` in a module of this package, and the module with its names
and directions in `BUILTIN` below; or the decorated factory in a plugin (grue/plugins.py) for one from
outside. Built-in metrics are named lazily, as the algorithms are: listing them, checking a config's
names and reading their directions import no scorer module (several load torch), and a scorer's module
is imported the first time a scorer of it is built. tests/metrics/test_registry_lazy.py checks that
`BUILTIN` says what the modules register. The direction declared is the only one: the board orders by
it and a lower-is-better metric used as a reward is turned around by it (`reward_from` says how, when
the paper defines the reward differently from the negated metric). A plugin may not take a built-in
name (or one registered already) unless it passes `replace=True`. A user's function is a metric by
reference, `python:module:function` or `python:path/to/file.py:function`, its direction declared on the
function (grue/extend/user_metric.py): it is registered under the reference the first time a lookup
names it.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional

from grue.lazy_builtins import builtin_registration
from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue, Scorer
from grue.metrics.text import clear_text_caches

ScorerFactory = Callable[[MetricContext], Scorer]
RewardFrom = Callable[[float], float]

# Every built-in scorer module -> the metrics it registers and their direction (higher is better), as
# its `@register` declares them: what listing, config checks and the board need, without the import.
BUILTIN: dict[str, dict[str, bool]] = {
    "grue.metrics.bertscore": {"bertscore": True},
    "grue.metrics.bleu": {"bleu": True, "bleu3": True, "bleu4": True},
    "grue.metrics.bleurt": {"bleurt": True},
    "grue.metrics.cider": {"cider": True},
    "grue.metrics.copying": {"novel_2grams": True, "sentence_copy_rate": False, "first3_copy_rate": False},
    "grue.metrics.coverage": {"coverage": True},
    "grue.metrics.diversity": {"msttr": True, "distinct_1": True, "distinct_2": True, "entropy_1": True,
                               "entropy_2": True, "unique_1": True, "unique_2": True},
    "grue.metrics.intent": {"intent_accuracy": True},
    "grue.metrics.lm": {"perplexity": False},
    "grue.metrics.meteor": {"meteor": True},
    "grue.metrics.parent": {"parent": True},
    "grue.metrics.rouge": {"rouge1": True, "rouge2": True, "rougeL": True, "rougeLsum": True},
    "grue.metrics.rouge_l_max": {"rougeL_max": True},
    "grue.metrics.sacre": {"sacrebleu": True, "chrf": True},
    "grue.metrics.spice": {"spice": True},
    "grue.metrics.summac": {"summaczs": True},
    "grue.metrics.ter": {"ter": False},
    "grue.rewards.sentiment": {"sentiment": True},  # the classifier's metric lives with its reward
}
# Built-in metrics that cannot be a reward (their module's `not_rewards` says why).
BUILTIN_NOT_REWARDS = frozenset({"perplexity"})
_HOME = {name: module for module, names in BUILTIN.items() for name in names}
_DIRECTION = {name: better for names in BUILTIN.values() for name, better in names.items()}


@dataclass(frozen=True)
class _Entry:
    names: tuple[str, ...]
    higher_is_better: dict[str, bool]
    factory: ScorerFactory
    reward_from: dict[str, RewardFrom] = field(default_factory=dict)
    not_rewards: dict[str, str] = field(default_factory=dict)  # name -> why it cannot be a reward


# Two tables, so that a test restoring `_BY_NAME` after registering its own metrics never loses a
# built-in scorer whose module was imported meanwhile (a module registers only once per process).
_BUILTIN_LOADED: dict[str, _Entry] = {}  # built-in metrics whose module has been imported
_BY_NAME: dict[str, _Entry] = {}         # everything else: plugins, python: references, replacements


def register(higher_is_better: dict[str, bool], reward_from: Optional[Mapping[str, RewardFrom]] = None,
             not_rewards: Optional[Mapping[str, str]] = None,
             replace: bool = False) -> Callable[[ScorerFactory], ScorerFactory]:
    """Register a scorer factory for the metric names (keys of `higher_is_better`) it produces.

    `reward_from` maps a metric's corpus-free per-sample value to its reward when that is not the value
    itself (higher is better) or its negation (lower is better); `not_rewards` names metrics that
    cannot be a reward, with the reason (perplexity needs the model being trained). A name that is built
    in or registered already is refused (grue.plugins.NameTaken) unless `replace=True` says it is meant."""

    def deco(factory: ScorerFactory) -> ScorerFactory:
        entry = _Entry(tuple(higher_is_better), dict(higher_is_better), factory, dict(reward_from or {}),
                       dict(not_rewards or {}))
        if _is_builtin(entry):
            _check_declared(entry)
            _BUILTIN_LOADED.update(dict.fromkeys(entry.names, entry))
            return factory
        for name in entry.names:
            if not replace:
                _refuse_taken(name, factory)
        _BY_NAME.update(dict.fromkeys(entry.names, entry))
        return factory

    return deco


def _is_builtin(entry: _Entry) -> bool:
    """Registered by the module BUILTIN names for these metrics (anything else is checked like a plugin's)."""
    module = getattr(entry.factory, "__module__", None)
    return all(_HOME.get(name) == module for name in entry.names)


def _check_declared(entry: _Entry) -> None:
    """A built-in module and BUILTIN must agree, or listings would say one direction and scoring another."""
    differ = [name for name in entry.names if _DIRECTION[name] != entry.higher_is_better[name]]
    not_rewards = {name for name in entry.names if name in BUILTIN_NOT_REWARDS} != set(entry.not_rewards)
    if differ or not_rewards:
        raise RuntimeError(f"{_HOME[entry.names[0]]} registers {', '.join(differ) or 'not_rewards'} otherwise than "
                           "grue.metrics.registry.BUILTIN(_NOT_REWARDS) declares: bring them in line")


def _refuse_taken(name: str, factory: ScorerFactory) -> None:
    from grue.plugins import NameTaken

    taken = _BY_NAME.get(name)
    if taken is not None and taken.factory is not factory:
        raise NameTaken(f"metric {name!r} is registered twice (by {_origin(taken.factory)} and {_origin(factory)}); "
                        "give one of them another name, or pass replace=True to register() to replace the first")
    if name in _HOME:
        raise NameTaken(f"metric {name!r} is built into grue ({_HOME[name]}); register yours under another name, "
                        "or pass replace=True to register() to replace the built-in one")


def _origin(factory: ScorerFactory) -> str:
    return f"{getattr(factory, '__module__', '?')}.{getattr(factory, '__qualname__', '?')}"


def builtin_module(name: str) -> Optional[str]:
    """The module of a built-in metric, None for any other name (read without importing it)."""
    return _HOME.get(name)


def _load_plugins() -> None:
    from grue.plugins import load_plugins

    load_plugins()


def _ensure_user_metric(name: str) -> None:
    """Register a python: reference under its own name (imported and its direction checked) on first use."""
    from grue.extend.python_ref import is_python_ref

    if is_python_ref(name) and name not in _BY_NAME:
        from grue.extend.user_metric import declared_direction, user_metric_factory

        register(higher_is_better={name: declared_direction(name)})(user_metric_factory(name))


def _direction(name: str) -> Optional[bool]:
    """A metric's declared direction, without importing its scorer; None for an unknown name."""
    entry = _BY_NAME.get(name)
    return entry.higher_is_better[name] if entry is not None else _DIRECTION.get(name)


def _entry(name: str) -> Optional[_Entry]:
    """The registration of a metric, importing its built-in module the first time; None for an unknown name."""
    if name in _BY_NAME:
        return _BY_NAME[name]
    return builtin_registration(name, _HOME, _BUILTIN_LOADED, "metric", "grue.metrics.registry.BUILTIN")


def known_metrics() -> list[str]:
    _load_plugins()
    return sorted(set(_HOME) | set(_BY_NAME))


def higher_is_better(name: str) -> bool:
    _load_plugins()
    _ensure_user_metric(name)
    found = _direction(name)
    if found is None:
        raise KeyError(name)
    return found


def find_direction(name: str) -> Optional[bool]:
    """The declared direction of a metric, or None for a name no scorer here produces."""
    _load_plugins()
    return _direction(name)


def reward_transform(name: str) -> RewardFrom:
    """How a metric's per-sample value becomes a reward to maximise: as declared, else itself when
    higher is better, else its negation. Refuses a metric that cannot be a reward."""
    _load_plugins()
    _ensure_user_metric(name)
    entry = _entry(name)
    if entry is None:
        raise KeyError(name)
    if name in entry.not_rewards:
        raise MetricUnavailable(f"metric {name!r} cannot be a reward: {entry.not_rewards[name]}")
    if name in entry.reward_from:
        return entry.reward_from[name]
    return (lambda v: v) if entry.higher_is_better[name] else (lambda v: -v)


def reward_metrics() -> list[str]:
    """The metrics that can serve as a reward (read without importing any scorer)."""
    return [name for name in known_metrics()
            if name not in (_BY_NAME[name].not_rewards if name in _BY_NAME else BUILTIN_NOT_REWARDS)]


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
    # Per scorer, the wanted metrics it answers for: a scorer also producing a name a plugin replaced
    # (replace=True) must not overwrite the replacement's value.
    owns: list[tuple[str, ...]] = field(default_factory=list)

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        """Every scorer on the same inputs; tokenisation they share is done once (grue.metrics.text)."""
        out: dict[str, MetricValue] = {}
        try:
            for scorer, owned in zip(self.scorers, self.owns):
                values = scorer.compute(inputs)
                out.update({k: v for k, v in values.items() if k in owned})
        finally:
            clear_text_caches()
        return out


def build_scorers(names: Iterable[str], ctx: MetricContext) -> ScorerSet:
    """Build each needed scorer once; record those that cannot run here instead of failing later."""
    names = tuple(dict.fromkeys(names))
    check_names(names)  # registers the python: references among them
    entries = {name: _entry(name) for name in names}
    result = ScorerSet(names, [], {})
    for name, entry in entries.items():
        if entry is None:
            result.unavailable[name] = "not implemented in this version of grue"
            continue
        owned = tuple(n for n, e in entries.items() if e is entry)
        if owned[0] != name:  # built already, for the first name it produces
            continue
        try:
            result.scorers.append(entry.factory(ctx))
            result.owns.append(owned)
        except MetricUnavailable as why:
            result.unavailable.update(dict.fromkeys(owned, str(why)))
    return result
