"""The notice over every table with mini-profile rows, in words that fit the tasks the table holds.

Mini numbers sit in the same tables as the paper's and must not be read against them. What the mini
profile shrinks differs per task (IMDB's are Rotten Tomatoes snippets, a user's task reads its own file),
so the notice names each task's mini model and data from the task catalogue rather than one task's words
for all (issue 47: "review snippets" on a docstring task).
"""
from __future__ import annotations

from typing import Iterable

MINI_MARK = "Profile mini:"
NOT_COMPARABLE = "its numbers are not comparable to the paper's rows or to paper-profile runs."
# A table holding mini rows of no single known task (selection, tests, several tasks): the general words.
MINI_NOTICE = f"{MINI_MARK} small CPU-sized models, data and budgets (a few iterations); {NOT_COMPARABLE}"


def _model_name(reference: str) -> str:
    """'packaged:smollm2-135m' -> 'smollm2-135m'; a hub id or path as given."""
    return reference.split(":", 1)[1] if reference.startswith("packaged:") else reference


def _task_words(task: str) -> tuple[str, str] | None:
    """(the task's mini model, '<short>: <its mini data>') from its spec (None for a task not known here)."""
    from tasks import find_task

    spec = find_task(task)
    if spec is None:
        return None
    mini = spec.profiles.get("mini", {})
    policy = (mini.get("model") or {}).get("policy") or (spec.base.get("model") or {}).get("policy") or ""
    data = spec.data_description.get("mini") or ""
    return _model_name(str(policy)), f"{spec.short}: {data}" if data else ""


def mini_notice(tasks: Iterable[str] = ()) -> str:
    """The notice for a table of `tasks`' mini rows: the task's mini model and data for one task; for several,
    their models (each task's own table names its data)."""
    known = [w for w in map(_task_words, dict.fromkeys(tasks)) if w]
    if not known:
        return MINI_NOTICE
    models = ", ".join(dict.fromkeys(model for model, _ in known if model))
    what = [models, known[0][1]] if len(known) == 1 else [models, "each task's mini data (its own table names it)"]
    return (f"{MINI_MARK} small CPU-sized models, data and budgets ({'; '.join(w for w in what if w)}; a few "
            f"iterations); {NOT_COMPARABLE}")


def is_mini_notice(note: str) -> bool:
    return note.startswith(MINI_MARK)
