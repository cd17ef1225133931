"""The metric contract: every scorer turns a batch of generations into named values.

A scorer may produce several metric names at once (ROUGE gives rouge1/rouge2/rougeL/rougeLsum,
the n-gram statistics give distinct_1/distinct_2/...), so the unit of registration is the scorer and
the unit of reporting is the metric name. Names are the stable ones from DESIGN.md section 4.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from grue.errors import GrueUserError


class MetricUnavailable(GrueUserError, RuntimeError):
    """A metric cannot be computed on this machine (missing model, Java, checkpoint...).

    Raised when a scorer is built, so a run can report it before any training starts; the
    results file records the reason instead of a number.
    """


@dataclass(frozen=True)
class MetricInputs:
    """Everything a scorer may look at, aligned by index."""

    prompts: Sequence[str]
    generations: Sequence[str]
    references: Sequence[Sequence[str]]  # one or more references per sample; may be empty for LM-only metrics
    meta: Sequence[dict[str, Any]] = ()   # task metadata per sample (concepts, table, gold intent, ...)

    def __post_init__(self) -> None:
        n = len(self.generations)
        if len(self.prompts) != n or (self.references and len(self.references) != n):
            raise ValueError("prompts, generations and references must have the same length")


@dataclass
class MetricValue:
    """A corpus-level value and, where the metric has one, the value of each sample."""

    corpus: float
    per_sample: list[float] | None = None


@dataclass
class MetricContext:
    """What model-based scorers need from the run: device, the policy under evaluation, model refs."""

    device: str = "cpu"
    policy: Any = None                 # grue.policy object, for perplexity of references under the policy
    options: dict[str, Any] = field(default_factory=dict)  # per-metric settings from the task config


class Scorer(Protocol):
    """A scorer computes one or more metric names in one pass."""

    names: tuple[str, ...]
    higher_is_better: dict[str, bool]

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]: ...
