"""A `python:` reference as a metric: per-sample values from the user's function, their mean as the corpus value.

Its direction is part of the metric (the board orders by it): the function must declare
`higher_is_better` (`@grue.extend.metric(higher_is_better=True)`, or the attribute set by hand). The
metric is reported under the reference itself, so a results file says which code produced it.
"""
from __future__ import annotations

from typing import Callable

from grue.extend.errors import ExtensionError
from grue.extend.python_ref import call_batched, load_callable
from grue.metrics.base import MetricContext, MetricInputs, MetricValue


def declared_direction(ref: str) -> bool:
    """The function's `higher_is_better`, or an error saying how to declare it."""
    fn = load_callable(ref, "metric")
    direction = getattr(fn, "higher_is_better", None)
    if not isinstance(direction, bool):
        raise ExtensionError(f"metric {ref!r} declares no direction: decorate it with "
                             "@grue.extend.metric(higher_is_better=True or False), or set "
                             f"{getattr(fn, '__name__', 'the function')}.higher_is_better")
    return direction


class UserMetricScorer:
    def __init__(self, ref: str) -> None:
        self.names = (ref,)
        self.higher_is_better = {ref: declared_direction(ref)}
        self.fn = load_callable(ref, "metric")

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        n = len(inputs.generations)
        references = list(inputs.references) or [[] for _ in range(n)]
        meta = list(inputs.meta) or [{} for _ in range(n)]
        values = call_batched(self.fn, f"metric {self.names[0]!r}", inputs.prompts, inputs.generations,
                              references, meta)
        return {self.names[0]: MetricValue(corpus=sum(values) / n if n else float("nan"), per_sample=values)}


def user_metric_factory(ref: str) -> Callable[[MetricContext], UserMetricScorer]:
    return lambda ctx: UserMetricScorer(ref)
