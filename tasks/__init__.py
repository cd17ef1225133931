"""The task catalogue: every task file in this folder, plus tasks that plugins register.

A task is one module here defining `TASK = TaskSpec(...)` (files starting with `_` hold shared
settings, not tasks); it is found by scanning the folder, never by a hand-kept list, so adding a
task is adding its file. Everything else that needs to know tasks (config validation, the board's
columns and navigation, metric groups, critic templates) reads the specs through this module.
`grue tasks` lists them.
"""
from __future__ import annotations

import difflib
import functools
import importlib
import pkgutil

from grue.config.task_spec import TaskSpec

_REGISTERED: dict[str, TaskSpec] = {}


@functools.lru_cache(maxsize=1)
def _task_files() -> dict[str, TaskSpec]:
    """The specs of this folder's task modules, by name."""
    specs = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("_"):
            continue
        spec = importlib.import_module(f"{__name__}.{module.name}").TASK
        if spec.name != module.name:
            raise ValueError(f"tasks/{module.name}.py declares task {spec.name!r}: a task file is named after its task")
        specs[spec.name] = spec
    return specs


def register_task(spec: TaskSpec) -> TaskSpec:
    """Add a task from outside this folder (a plugin, grue/plugins.py)."""
    known = _catalogue().get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"task {spec.name!r} is already defined")
    _REGISTERED[spec.name] = spec
    return spec


def _catalogue() -> dict[str, TaskSpec]:
    from grue.plugins import load_plugins

    load_plugins()
    merged = {**_task_files(), **_REGISTERED}
    return dict(sorted(merged.items(), key=lambda item: (item[1].order, item[0])))


def all_tasks() -> tuple[TaskSpec, ...]:
    """Every task, the GRUE tasks first in the paper's order."""
    return tuple(_catalogue().values())


def task_names() -> tuple[str, ...]:
    return tuple(_catalogue())


def grue_task_names() -> tuple[str, ...]:
    """The seven tasks of the GRUE benchmark: the ones its overall score averages."""
    return tuple(spec.name for spec in all_tasks() if spec.grue_task)


def get_task(name: str) -> TaskSpec:
    catalogue = _catalogue()
    if name not in catalogue:
        close = difflib.get_close_matches(name, list(catalogue), n=3)
        hint = f"Did you mean: {', '.join(close)}?" if close else f"known: {', '.join(catalogue)}"
        raise KeyError(f"unknown task {name!r}; {hint}")
    return catalogue[name]


def find_task(name: str) -> TaskSpec | None:
    """The spec, or None for a name that is no task here (a results file of a task not installed)."""
    return _catalogue().get(name)
