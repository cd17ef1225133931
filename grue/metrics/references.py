"""Checks on the references a reference-based metric is given.

A sample without any reference cannot be scored against references, and scoring it against a made-up
one (RL4LMs substituted "empty reference" for CommonGen's hidden test set) produces a number that means
nothing. So it is an error, raised before any work, naming the metric and the first bad sample.
"""
from __future__ import annotations

from grue.metrics.base import MetricInputs


def require_references(inputs: MetricInputs, metric: str) -> None:
    """Raise ValueError unless every sample has at least one reference string."""
    if not inputs.generations:
        return
    if not inputs.references:
        raise ValueError(f"{metric} needs references and none were given")
    for i, refs in enumerate(inputs.references):
        if isinstance(refs, str) or len(refs) == 0:
            problem = "a bare string instead of a list" if isinstance(refs, str) else "no reference"
            raise ValueError(f"{metric}: sample {i} has {problem}")
