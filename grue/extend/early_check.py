"""A task's python: metrics and rewards tried on a few of its own records before anything starts.

A metric that returns the wrong number of values, or a text where a number belongs, otherwise fails at
its first evaluation, possibly after an hour of training. Where the task's data are local files (read
when the task is, grue/task_files/declarative.py keeps their first records), each such function is called
once on a few of them, with each record's first reference standing in for the generation: no model is
needed, so `grue config` stays fast. What it returns is checked as a run checks it
(grue/extend/python_ref.py `checked_values`). A task without local data (a hub dataset, a Python task's
own loader) is not tried: its records are not read at config time.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Sequence

from grue.data.sample import Sample
from grue.extend.errors import ExtensionError
from grue.extend.python_ref import call_batched, is_python_ref, load_callable

SAMPLE = 4  # records tried: enough to see a count or type mistake, few enough for any metric's cost


def _where(fn: Any) -> str:
    """`file.py:line` of a function's definition, for the message."""
    try:
        return f"{Path(inspect.getsourcefile(fn)).name}:{inspect.getsourcelines(fn)[1]}"
    except (TypeError, OSError):
        return getattr(fn, "__name__", "the function")


_TRIED: dict[tuple[str, str, Any, str], str | None] = {}  # a sweep asks once per cell


def _tried(ref: str, what: str, fn: Any, samples: tuple[Sample, ...]) -> str | None:
    """The problem of calling `fn` on the samples, or None. Keyed by the function itself, which the key keeps
    alive: keyed by id(fn), an edited file's new function could reuse a freed one's id and get its old answer
    (seen: a reward returning a str reported as the previous version's wrong length)."""
    key = (ref, what, fn, repr(samples))
    if key not in _TRIED:
        _TRIED[key] = _try(ref, what, fn, samples)
    return _TRIED[key]


def _try(ref: str, what: str, fn: Any, samples: tuple[Sample, ...]) -> str | None:
    generations = [s.references[0] for s in samples]
    try:
        call_batched(fn, f"{what} {ref!r}", [s.prompt for s in samples], generations,
                     [s.references for s in samples], [s.meta for s in samples])
    except ExtensionError as err:
        return (f"{err} ({_where(fn)}), tried at config time on {len(samples)} records of the task's data with their "
                "first reference as the generation; it must return one finite float per generation")
    return None


def _samples(task: Any) -> tuple[Sample, ...]:
    preview = getattr(task.loader, "preview", None) or {}
    for split in ("test", "val", "train"):
        if preview.get(split):
            return tuple(preview[split][:SAMPLE])
    return ()


def code_shape_problems(cfg: Any) -> list[str]:
    """One line per python: metric or reward of the run that fails on a few of the task's records."""
    from grue.train.registry import optimises_reward
    from tasks import get_task

    samples = _samples(get_task(cfg.task))
    if not samples:
        return []
    refs: list[tuple[str, str]] = [(m, "metric") for m in cfg.eval.metrics if is_python_ref(m)]
    if optimises_reward(cfg.algo) and is_python_ref(cfg.reward.name):
        refs.append((cfg.reward.name, "reward"))
    problems = []
    for ref, what in dict.fromkeys(refs):
        problem = _tried(ref, what, load_callable(ref, what), samples)
        if problem:
            problems.append(problem)
    return problems


def check_code_shapes(cfg: Any) -> None:
    """`grue config`: the first problem as one error line."""
    problems: Sequence[str] = code_shape_problems(cfg)
    if problems:
        raise ExtensionError(problems[0])
