"""The task catalogue: every task file in this folder, plus tasks that plugins register.

A task is one module here defining `TASK = TaskSpec(...)` (files starting with `_` hold shared
settings, not tasks); it is found by scanning the folder, never by a hand-kept list, so adding a
task is adding its file. Everything else that needs to know tasks (config validation, the board's
columns and navigation, metric groups, critic templates) reads the specs through this module.
`grue tasks` lists them.

Tasks from files the user owns join them the same way (grue/task_files/): `task=path/to/file.yaml`
(or `.toml`, or a `.py` defining TASK) reads that file, every task file in the folders of
`GRUE_TASKS_PATH` is listed, and so are the tasks installed packages declare in the `grue.tasks`
entry-point group (a TaskSpec, or a package folder of task files). A file task may not take the name
of another task.
"""
from __future__ import annotations

import difflib
import functools
import importlib
import os
import pkgutil
import sys
from pathlib import Path
from typing import Any, Mapping

from grue.config.task_spec import TaskSpec

_REGISTERED: dict[str, TaskSpec] = {}
_FILE_TASKS: dict[str, TaskSpec] = {}   # read through task=path/to/file, by name
_REGISTERED_BY: dict[str, str] = {}     # task name -> which plugin or entry point added it


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
    """Add a task from outside this folder (a plugin, grue/plugins.py); `grue tasks` names the module."""
    known = _catalogue().get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"task {spec.name!r} is already defined")
    _REGISTERED[spec.name] = spec
    module = sys._getframe(1).f_globals.get("__name__", "")
    _REGISTERED_BY[spec.name] = f"plugin {module} (register_task)" if module else "a plugin (register_task)"
    return spec


def _path_tasks() -> dict[str, TaskSpec]:
    """The tasks of GRUE_TASKS_PATH's files (re-read when a file changes; grue/task_files/discover.py)."""
    from grue.task_files.discover import path_entries, read_task_file

    found: dict[str, TaskSpec] = {}
    for path in path_entries():
        spec = read_task_file(path)
        if spec.name in found and found[spec.name].origin != spec.origin:
            _clash(spec, found[spec.name])
        found[spec.name] = spec
    return found


ENTRY_POINT_GROUP = "grue.tasks"


@functools.lru_cache(maxsize=1)
def _entry_point_tasks() -> tuple[TaskSpec, ...]:
    """Tasks an installed package declares in the `grue.tasks` entry-point group: a TaskSpec
    (`name = "pkg.module:TASK"`), or a package whose folder holds task files (`name = "pkg.tasks"`).
    Installed distributions do not change while a process runs: read once."""
    from importlib.metadata import entry_points

    from grue.extend.errors import ExtensionError
    from grue.task_files.discover import folder_task_files, read_task_file

    found: list[TaskSpec] = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = point.load()
        except Exception as err:  # noqa: BLE001 - an installed package failed to import: name it
            raise ExtensionError(f"entry point {point.name!r} ({point.value}) of {ENTRY_POINT_GROUP!r} cannot be "
                                 f"imported: {type(err).__name__}: {err}") from None
        if isinstance(target, TaskSpec):
            _REGISTERED_BY.setdefault(target.name, f"entry point {point.name} ({point.value})")
            found.append(target)
        elif getattr(target, "__file__", None):
            found.extend(read_task_file(path) for path in folder_task_files(Path(target.__file__).parent))
        else:
            raise ExtensionError(f"entry point {point.name!r} ({point.value}) of {ENTRY_POINT_GROUP!r} is neither "
                                 "a TaskSpec nor a package holding task files")
    return tuple(found)


def _clash(spec: TaskSpec, other: TaskSpec) -> None:
    from grue.extend.errors import ExtensionError

    raise ExtensionError(f"{task_origin(spec)} defines task {spec.name!r}, which {task_origin(other)} already defines; "
                         "give it another name (name: in the file)")


def _catalogue() -> dict[str, TaskSpec]:
    from grue.plugins import load_plugins

    load_plugins()
    merged = dict(_task_files())
    for spec in (*_entry_point_tasks(), *_path_tasks().values(), *_FILE_TASKS.values()):
        known = merged.get(spec.name)
        if known is not None and known is not spec and (not spec.origin or known.origin != spec.origin):
            _clash(spec, known)  # a file read again (same origin) replaces itself; nothing else may
        merged[spec.name] = spec
    merged.update(_REGISTERED)
    return dict(sorted(merged.items(), key=lambda item: (item[1].order, item[0])))


def load_task_file(path: str) -> TaskSpec:
    """Read a task file (`task=path/to/file`) and add its task to the catalogue; the same file read again
    after an edit (or another file of the same name given to task=) replaces what was read before. A
    built-in, plugin or GRUE_TASKS_PATH task of that name is a clash."""
    from grue.task_files.discover import read_task_file

    from grue.plugins import load_plugins

    spec = read_task_file(path)
    load_plugins()
    installed = {t.name: t for t in _entry_point_tasks()}
    known = {**_task_files(), **installed, **_path_tasks(), **_REGISTERED}.get(spec.name)
    if known is not None and known.origin != spec.origin:
        _clash(spec, known)
    _FILE_TASKS[spec.name] = spec  # the file named last wins over one read earlier through task=
    return spec


def task_from_choice(value: str) -> TaskSpec:
    """The task `task=` names: a path to a task file, else a task name."""
    from grue.task_files.discover import looks_like_task_file

    return load_task_file(value) if looks_like_task_file(value) else get_task(value)


def inheritable_task(name: str) -> TaskSpec | None:
    """A task a task file may inherit presets from: a built-in one or a plugin's (file tasks are not, so
    inheritance never loops)."""
    from grue.plugins import load_plugins

    load_plugins()
    return {**_task_files(), **_REGISTERED}.get(name)


def adopt_recorded_task(config: Mapping[str, Any]) -> TaskSpec | None:
    """The task of a results file's config, read from the declarative task file it records (`task_file`)
    when no task of that name is known here: how the board can show a user's runs without GRUE_TASKS_PATH.
    Only YAML/TOML files are adopted (they run no code); a file that is gone, or a Python task file,
    leaves the task unknown (the board then says how to make it known)."""
    from grue.task_files.discover import EXTENSIONS

    name, path = config.get("task"), config.get("task_file")
    if not isinstance(name, str) or not isinstance(path, str) or find_task(name) is not None:
        return find_task(name) if isinstance(name, str) else None
    if not path.endswith(tuple(e for e in EXTENSIONS if e != ".py")) or not os.path.isfile(path):
        return None
    spec = load_task_file(path)
    return spec if spec.name == name else None


def task_origin(spec: TaskSpec) -> str:
    """Where a task came from, for `grue tasks`."""
    if spec.origin:
        return spec.origin
    if _task_files().get(spec.name) is spec:
        return f"tasks/{spec.name}.py (built-in)"
    return _REGISTERED_BY.get(spec.name, "a plugin (register_task)")


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
