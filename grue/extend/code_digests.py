"""The content of the user's code a run depends on, as part of its identity (`code_sha256` in the config).

A `python:` metric or reward is code the user keeps editing: a fixed metric must make a new setting (a new
config hash and run directory), never be reported under the old run's numbers. So the config records, per
reference, the SHA-256 of the file it names (a `python:file.py:fn` reference's file, a
`python:module:fn` reference's module file), and for a Python task file the file of its loader and
supervised hooks when they live in a module of their own (the task file itself is `task_sha256`).

Only the references the run reads count: those in the groups its algorithm hashes, and a reward's only
when the algorithm optimises one (a zero-shot run's scores do not depend on the reward's code). A run that
names no `python:` code records nothing (the key stays unset), so its hash is unchanged.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Iterator, Mapping

from grue.extend.python_ref import file_sha256, is_python_ref, source_file

KEY = "code_sha256"
# The callables a TaskSpec holds that run the user's code while a run loads or trains on its data.
TASK_HOOKS = ("loader", "supervised_filter", "supervised_target")
_OWN_CODE = (Path(__file__).resolve().parents[1], Path(__file__).resolve().parents[2] / "tasks")  # grue/, tasks/


def _references(values: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """(key path, reference) of every python: reference in a config's values."""
    if isinstance(values, Mapping):
        for key, value in values.items():
            yield from _references(value, (*path, str(key)))
    elif isinstance(values, (list, tuple)):
        for value in values:
            yield from _references(value, path)
    elif is_python_ref(values):
        yield path, values


def _is_own_code(file: Path) -> bool:
    return any(file == root or root in file.parents for root in _OWN_CODE)


def _hook_digests(task: Any) -> dict[str, str]:
    """`task.<hook> <file name>` -> digest, for a Python task file's hooks defined outside that file."""
    if not str(getattr(task, "origin", "")).endswith(".py"):
        return {}  # a built-in or plugin task is code of a package; a declarative task runs no hooks
    origin = Path(task.origin).resolve()
    out = {}
    for hook in TASK_HOOKS:
        fn = getattr(task, hook, None)
        try:
            file = inspect.getsourcefile(inspect.unwrap(fn)) if fn is not None else None
        except TypeError:  # a builtin or a callable object without source
            file = None
        if file is None:
            continue
        file = Path(file).resolve()
        if file != origin and not _is_own_code(file) and file.is_file():
            out[f"task.{hook} {file.name}"] = file_sha256(file)
    return out


def code_digests(values: Mapping[str, Any], task: Any, optimises_reward: bool) -> dict[str, str] | None:
    """Reference -> SHA-256 of its file, for every python: reference of `values` (a config's semantic part,
    grue.config.identity.semantic_config) and the task's hooks; None when there are none."""
    out: dict[str, str] = {}
    for path, ref in _references(values):
        if path[:1] == ("reward",) and not optimises_reward:
            continue
        what = "metric" if path[:1] == ("eval",) else "reward"
        file = source_file(ref, what)
        if file is not None:
            out[ref] = file_sha256(file)
    out.update(_hook_digests(task))
    return out or None


def file_of(key: str) -> str:
    """The file name a recorded key names: `python:dir/m.py:fn` -> m.py, `python:pkg.mod:fn` -> pkg.mod,
    `task.loader my_loader.py` -> my_loader.py."""
    if is_python_ref(key):
        target = key[len("python:"):].rpartition(":")[0]
        return Path(target).name if target.endswith(".py") else target
    return key.split(" ", 1)[-1]


def changed_files(recorded: Mapping[str, str] | None, current: Mapping[str, str] | None) -> list[str]:
    """The keys whose file content differs between two records (a key only one side has counts too)."""
    recorded, current = dict(recorded or {}), dict(current or {})
    return sorted(k for k in {*recorded, *current} if recorded.get(k) != current.get(k))
