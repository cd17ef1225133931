"""The seven GRUE tasks, one declarative file each. `grue tasks` lists them."""
from __future__ import annotations

import importlib

from grue.config.task_spec import TaskSpec

TASK_NAMES = ("imdb", "commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")


def task_names() -> tuple[str, ...]:
    return TASK_NAMES


def get_task(name: str) -> TaskSpec:
    if name not in TASK_NAMES:
        raise KeyError(f"unknown task {name!r}; known: {', '.join(TASK_NAMES)}")
    return importlib.import_module(f"tasks.{name}").TASK
