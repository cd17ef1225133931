"""Registry of scorers by metric name, and the one function runs call to score generations."""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Callable, Iterable

from grue.results.schema import METRIC_NAMES
from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue, Scorer
from grue.metrics.text import clear_text_caches

ScorerFactory = Callable[[MetricContext], Scorer]


@dataclass(frozen=True)
class _Entry:
    names: tuple[str, ...]
    higher_is_better: dict[str, bool]
    factory: ScorerFactory


_BY_NAME: dict[str, _Entry] = {}

# Modules that register scorers on import. Imported lazily so `grue --help` stays fast.
_SCORER_MODULES = (
    "grue.metrics.diversity",
    "grue.metrics.lm",
    "grue.metrics.bleu",
    "grue.metrics.sacre",
    "grue.metrics.ter",
    "grue.metrics.rouge",
    "grue.metrics.rouge_l_max",
    "grue.metrics.meteor",
    "grue.metrics.cider",
    "grue.metrics.spice",
    "grue.metrics.coverage",
    "grue.metrics.bertscore",
    "grue.metrics.bleurt",
    "grue.metrics.summac",
    "grue.metrics.parent",
    "grue.metrics.intent",
    "grue.metrics.copying",
    "grue.rewards.sentiment",
)


def register(higher_is_better: dict[str, bool]) -> Callable[[ScorerFactory], ScorerFactory]:
    """Register a scorer factory for the metric names (keys) it produces."""

    def deco(factory: ScorerFactory) -> ScorerFactory:
        entry = _Entry(tuple(higher_is_better), dict(higher_is_better), factory)
        for name in entry.names:
            if name in _BY_NAME and _BY_NAME[name].factory is not factory:
                raise ValueError(f"metric {name!r} registered twice")
            _BY_NAME[name] = entry
        return factory

    return deco


def _load_all() -> None:
    for module in _SCORER_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:  # a scorer module not written yet must not break the others
            if err.name != module:
                raise


def known_metrics() -> list[str]:
    _load_all()
    return sorted(_BY_NAME)


def higher_is_better(name: str) -> bool:
    _load_all()
    return _BY_NAME[name].higher_is_better[name]


def check_names(names: Iterable[str]) -> None:
    """Refuse names that are neither in the metric contract nor registered, suggesting close ones."""
    known = sorted(set(known_metrics()) | set(METRIC_NAMES))
    for name in names:
        if name not in known:
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
    check_names(names)
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
