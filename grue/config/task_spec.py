"""What a task file in `tasks/` declares: data, prompts, metrics, rewards and presets per profile.

Task files are declarative: every number in their presets points at a table of the paper
(research/grue_spec.md). The config loader merges them in the order
defaults -> task base -> profile -> algorithm preset (of that profile) -> command line.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from grue.data.sample import Sample

# load(cfg) -> {"train": [...], "val": [...], "test": [...]}
SplitLoader = Callable[[Any], dict[str, list[Sample]]]


@dataclass(frozen=True)
class TaskSpec:
    name: str
    title: str
    source: str                                   # where in grue_spec.md the presets come from
    task_metrics: tuple[str, ...]                 # GRUE task-preference metrics (paper Table 1)
    naturalness_metrics: tuple[str, ...]          # GRUE naturalness metrics (paper Table 1)
    short: str = ""                               # column and navigation title ("CNN/DM"); default: the name
    order: int = 1000                             # position in tables: the GRUE tasks in the paper's order, then others
    grue_task: bool = False                       # one of the seven GRUE tasks (the overall GRUE score averages them)
    extra_metrics: tuple[str, ...] = ()           # also reported (diversity statistics, ...)
    rewards: tuple[str, ...] = ()                 # rewards the paper optimised on this task
    base: Mapping[str, Any] = field(default_factory=dict)
    profiles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    algos: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)  # profile -> algo -> overrides
    data_description: Mapping[str, str] = field(default_factory=dict)                   # profile -> text
    not_runnable: Mapping[str, str] = field(default_factory=dict)  # profile -> why it cannot run yet
    test_references_hidden: bool = False          # CommonGen/ToTTo: "test" is scored on validation
    critic_template: str | None = None            # reward.dense=critic's built-in template here (None: generic)
    human_protocol: Any = None                    # grue.human.protocol.Protocol: how raters judge it (None: no studies)
    loader: SplitLoader | None = None
    # Supervised training: which train samples to use and the target text for each.
    supervised_filter: Callable[[Sample], bool] | None = None
    supervised_target: Callable[[Sample], str] | None = None  # default: the first reference
    # CommonGen: one training pair per reference (the paper trains on every (concept set, target) row).
    supervised_all_references: bool = False
    # A task from a file the user owns (grue/task_files/): the file, and the SHA-256 of its content, which
    # the config hash covers (editing the file is a new setting). Empty for built-in and plugin tasks.
    origin: str = ""
    file_sha256: str | None = None

    def __post_init__(self) -> None:
        if not self.short:
            object.__setattr__(self, "short", self.name)

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.task_metrics + self.naturalness_metrics + self.extra_metrics))

    def runnable(self, profile: str) -> bool:
        return self.loader is not None and profile not in self.not_runnable

    def why_not_runnable(self, profile: str) -> str:
        if profile in self.not_runnable:
            return self.not_runnable[profile]
        return f"task {self.name!r} has no data loader yet" if self.loader is None else ""


DIVERSITY_METRICS: Sequence[str] = (
    "msttr", "distinct_1", "distinct_2", "entropy_1", "entropy_2", "unique_1", "unique_2",
)
