"""What the board knows about tasks and algorithms, read from the task catalogue (tasks/) and the
algorithm registry (grue/train/registry.py): nothing here is a list of its own.

Results of a task or algorithm this installation does not know (a plugin not loaded) still show:
under their own name, after the known ones, with no Table 1 metric groups.
"""
from __future__ import annotations

from typing import Iterable

# Rows of the paper's tables that are baselines, not algorithms anyone trains (grue_spec.md Table 7).
REFERENCE_BASELINES: dict[str, tuple[str, str]] = {"lead_3": ("Lead-3", "#937860")}
UNKNOWN_COLOUR = "#333333"


def _task(task: str):
    from tasks import find_task

    return find_task(task)


def task_metrics(task: str) -> tuple[str, ...]:
    """GRUE Table 1's task-preference metrics of a task (its spec's `task_metrics`)."""
    spec = _task(task)
    return tuple(spec.task_metrics) if spec else ()


def naturalness_metrics(task: str) -> tuple[str, ...]:
    spec = _task(task)
    return tuple(spec.naturalness_metrics) if spec else ()


def reported_metrics(task: str) -> tuple[str, ...]:
    """Every metric the task's spec names, in its order: task, naturalness, then the rest."""
    spec = _task(task)
    return tuple(spec.metrics) if spec else ()


def task_short(task: str) -> str:
    spec = _task(task)
    return spec.short if spec else task


def outside_grue_note(task: str) -> str | None:
    """What a task's table says when the task is not one of GRUE's seven (a user's task file, a plugin):
    None for GRUE tasks."""
    if task in grue_tasks():
        return None
    spec = _task(task)
    if spec is None:
        origin = "not installed here (set GRUE_TASKS_PATH to its task file's folder, or load its plugin)"
    else:
        from tasks import task_origin

        origin = f"from {task_origin(spec)}"
    return (f"{task_short(task)} is not a GRUE task ({origin}): it has no paper rows and no part in the GRUE "
            "score or the overall board.")


def ordered_tasks(present: Iterable[str]) -> list[str]:
    """The tasks present, in the catalogue's order (the GRUE seven in the paper's), unknown ones last."""
    from tasks import task_names

    present = set(present)
    known = [t for t in task_names() if t in present]
    return known + sorted(present - set(known))


def grue_tasks() -> tuple[str, ...]:
    """The seven tasks the overall GRUE score averages."""
    from tasks import grue_task_names

    return grue_task_names()


def algo_rank(algo: str) -> int:
    """Registration order: the paper's six in their table order, then later algorithms, then others."""
    from grue.train.registry import algorithm_names

    names = algorithm_names()
    return names.index(algo) if algo in names else len(names)


def algo_label(algo: str) -> str:
    from grue.train.registry import find_algorithm

    entry = find_algorithm(algo)
    if entry is not None:
        return entry.label
    return REFERENCE_BASELINES.get(algo, (algo, ""))[0]


def algo_colour(algo: str) -> str:
    from grue.train.registry import find_algorithm

    entry = find_algorithm(algo)
    if entry is not None:
        return entry.colour
    return REFERENCE_BASELINES.get(algo, ("", UNKNOWN_COLOUR))[1]
