"""A weighted mix of metrics named on the command line: `reward=meteor@0.5+cider@0.5`.

Terms are joined by `+`; each is a metric that can be a reward, with `@weight` after it (1 when left out).
The mix is a metric reward like the paper's composites (grue/rewards/metric_reward.py: its per-sample
metric values, turned to the reward's direction, weighted and summed), so it also gives its components
apart, which `<group>.loss.reward_normalisation=per_component` standardises one by one (GDPO). `+` and `@`
are used because `,` separates a sweep's values and `=` a setting from its value.
"""
from __future__ import annotations

import difflib
import math
from typing import Optional

JOIN, WEIGHT = "+", "@"


def is_mix(name: str) -> bool:
    return JOIN in name or WEIGHT in name


def mix_weights(name: str) -> Optional[dict[str, float]]:
    """metric -> weight of a mix, or None for a name that is no mix. KeyError (the reward rule's error) for a
    term that is not a reward metric, a weight that is not a finite number, or a metric named twice."""
    if not is_mix(name):
        return None
    from grue.metrics.registry import reward_metrics

    known = reward_metrics()
    weights: dict[str, float] = {}
    for term in name.split(JOIN):
        metric, _, weight = term.strip().partition(WEIGHT)
        if metric not in known:
            close = difflib.get_close_matches(metric, known, n=3)
            hint = f"Did you mean: {', '.join(close)}?" if close else f"Known: {', '.join(known)}."
            raise KeyError(f"reward mix {name!r}: {metric!r} is not a metric that can be a reward. {hint}")
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise KeyError(f"reward mix {name!r}: the weight of {metric} must be a number, as {metric}@0.5")
        if metric in weights:
            raise KeyError(f"reward mix {name!r} names {metric} twice")
        weights[metric] = value
    return weights
