"""What the board knows about metrics on its own: direction, counts, and the order of columns.

Runs carry a `higher_is_better` map in results.json and that always wins; otherwise (the paper's
reference rows, which carry no map) the direction is the one the metric's scorer declares in the
metric registry (grue/metrics/registry.py), never a list kept here. The task/naturalness split of
GRUE Table 1 is each task spec's `task_metrics` / `naturalness_metrics` (grue/board/task_info.py).
"""
from __future__ import annotations

from typing import Mapping

from grue.board.task_info import naturalness_metrics, reported_metrics, task_metrics

# A length is neither better long nor short (the paper tabulates MeanOutputLength as a description).
UNDIRECTED: frozenset[str] = frozenset({"mean_output_length"})
# Corpus counts (n-grams seen once in the whole output): they grow with the number of samples scored,
# so they print as integers and compare only between equally sized evaluations.
COUNT_METRICS: frozenset[str] = frozenset({"unique_1", "unique_2"})


def higher_is_better(metric: str, declared: Mapping[str, bool] | None = None) -> bool:
    """Direction of a metric: the run's own declaration first, then its scorer's (rising when no scorer here
    produces it)."""
    if declared and metric in declared:
        return bool(declared[metric])
    from grue.metrics.registry import find_direction

    found = find_direction(metric)
    return True if found is None else found


def direction(metric: str, declared: Mapping[str, bool] | None = None) -> bool | None:
    """What the tables mark: True (↑), False (↓), or None for a metric with no better direction."""
    return None if metric in UNDIRECTED else higher_is_better(metric, declared)


def metric_order(task: str, metrics: list[str] | set[str]) -> list[str]:
    """Table 1 metrics first (task, then naturalness), then the task's other metrics in its spec's order,
    then any others."""
    present = set(metrics)
    head = [m for m in task_metrics(task) + naturalness_metrics(task) if m in present]
    known = [m for m in reported_metrics(task) if m in present and m not in head]
    rest = sorted(present - set(head) - set(known))
    return head + known + rest


PYTHON_PREFIX = "python:"


def metric_labels(metrics: list[str]) -> dict[str, str]:
    """Column titles: a `python:<file>:<function>` metric is titled by its function's name (issue 47:
    `python:docsum_metric.py:imperative` as a title), unless two metrics of the table share that name;
    every other metric by its own name."""
    short = {m: m.rsplit(":", 1)[1] if m.startswith(PYTHON_PREFIX) and m.count(":") >= 2 else m for m in metrics}
    taken = [short[m] for m in metrics]
    return {m: short[m] if taken.count(short[m]) == 1 else m for m in metrics}


def renamed_note(labels: Mapping[str, str]) -> str:
    """The note under a table whose titles shortened `python:` references ('' when none was)."""
    renamed = [f"{label} = {metric}" for metric, label in labels.items() if label != metric]
    return f"Metrics of the task's own code, by function name: {'; '.join(renamed)}." if renamed else ""
