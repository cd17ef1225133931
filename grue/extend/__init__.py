"""Code and files the user owns, brought into grue without forking it (docs/extending.md).

- `python_ref`: `python:module:function` / `python:path/to/file.py:function` references, imported only
  when a config names them, checked for the signature grue calls them with;
- `user_reward`, `user_metric`: such a callable as a reward or as a metric (with its declared direction);
- `metric`: the decorator a user metric declares its direction with.
Tasks from files live in `grue/task_files/`.
"""
from __future__ import annotations

from typing import Callable, TypeVar

F = TypeVar("F", bound=Callable)


def metric(higher_is_better: bool) -> Callable[[F], F]:
    """Declare a user metric's direction: `@metric(higher_is_better=True)` above the function.

    The same as setting `function.higher_is_better = True`; the board orders by it, and a
    lower-is-better metric named as a reward is negated (a reward is always maximised)."""
    if not isinstance(higher_is_better, bool):
        raise TypeError("metric(higher_is_better=...) takes True or False")

    def deco(fn: F) -> F:
        fn.higher_is_better = higher_is_better  # type: ignore[attr-defined]
        return fn

    return deco
