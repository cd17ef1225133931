"""A task defined in a Python file the user owns: a module that sets `TASK = TaskSpec(...)`, as the
built-in task files do, for what a declarative file cannot say (a custom loader, a supervised target).

The file is imported under a name of its own (so two folders may both hold `my_task.py`), and the
spec is stamped with the file and its content's digest, which the config hash covers.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import sys
from pathlib import Path

from grue.config.task_spec import TaskSpec
from grue.extend.errors import ExtensionError


def task_from_python(path: Path, sha256: str) -> TaskSpec:
    name = f"grue_user_task_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as err:  # noqa: BLE001 - the user's file failed to import: say which and why
        first = str(err).splitlines()[0] if str(err) else ""
        if isinstance(err, SystemExit):
            raise ExtensionError(f"{path}: the task file called sys.exit({err.code!r}) while being imported; a task "
                                 "file only defines TASK") from None
        raise ExtensionError(f"{path}: importing the task file failed: {type(err).__name__}: {first}") from None
    if not hasattr(module, "TASK"):
        raise ExtensionError(f"{path}: a Python task file defines TASK = TaskSpec(...) (grue.config.task_spec); "
                             "it defines no TASK")
    if not isinstance(module.TASK, TaskSpec):
        raise ExtensionError(f"{path}: a Python task file defines TASK = TaskSpec(...) (grue.config.task_spec); "
                             f"its TASK is a {type(module.TASK).__name__}")
    task = module.TASK
    loader = checked_loader(task.loader, path) if task.loader is not None else None
    return dataclasses.replace(task, origin=str(path), file_sha256=sha256, loader=loader)


def checked_loader(loader, path: Path):
    """The file's loader, its failures and what it returns checked (grue.data.checked_splits): a user's code,
    so a raise, a sys.exit or a malformed result is one error naming the file, never a traceback in a run."""
    import functools

    from grue.data.checked_splits import problems_text, split_problems

    @functools.wraps(loader)
    def load(cfg):
        try:
            splits = loader(cfg)
        except (Exception, SystemExit) as err:  # noqa: BLE001 - the user's loader failed: say where and why
            first = str(err).splitlines()[0] if str(err) else ""
            what = f"called sys.exit({err.code!r})" if isinstance(err, SystemExit) else f"raised {type(err).__name__}: {first}"
            raise ExtensionError(f"{path}: the task's loader {what}") from None
        problems = split_problems(splits)
        if problems:
            raise ExtensionError(f"{path}: the task's loader returned {problems_text(problems)}")
        return splits

    return load
