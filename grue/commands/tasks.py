"""`grue tasks`: what each task uses, per profile, whether it can run here, and where it came from
(tasks/ for the built-in ones, a task file of the user's, or a plugin).

One block per task, wrapped at the console's width (a pipe, a log, an 80-column window: some
15 lines a task); a table only on a terminal wide enough to show its cells whole.

"Runs here?" is what `grue run`'s preflight would say about the task's models and data, checked
against what is on this machine only: hub assets are looked up in the hub cache and never downloaded
(so the paper profile on a machine without a filled cache says which assets are missing and how to
get them). Packaged assets install with grue (the mini profile) and local paths are checked as paths.
"""
from __future__ import annotations

import os
import textwrap
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

WIDE = 200  # terminal columns the table needs before it reads better than the blocks
PROFILES = ("paper", "mini")
INDENT = 11  # where a block's values start: "  profile  " and "  metrics  " line up


@dataclass
class ProfileRow:
    profile: str
    data: str
    policy: str
    status: str


@dataclass
class TaskRow:
    name: str
    title: str
    origin: str
    metrics: str
    rewards: str
    profiles: list[ProfileRow]


@contextmanager
def _cache_only() -> Iterator[None]:
    """Asset lookups inside see the hub cache only (HF_HUB_OFFLINE for the duration): nothing is fetched."""
    saved = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = saved


def missing_assets(cfg: Any) -> list[str]:
    """The models and datasets of a config that are not on this machine: `model t5-base`, ... (the
    checks of preflight, against the hub cache only)."""
    from grue.assets import AssetMissing, resolve_model
    from grue.run.preflight import hub_assets, resolve_config_dataset

    missing = []
    with _cache_only():
        for kind, ref in hub_assets(cfg):
            try:
                resolve_model(ref, cfg.task) if kind == "model" else resolve_config_dataset(cfg, ref)
            except AssetMissing:
                missing.append(f"{kind} {ref}")
    return missing


def runs_here(task: Any, profile: str, cfg: Any) -> str:
    """'yes', or 'no: why' with the way out."""
    if not task.runnable(profile):
        return f"no: {task.why_not_runnable(profile)}"
    missing = missing_assets(cfg)
    if not missing:
        return "yes"
    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")
    way = (f"`grue fetch task={task.origin or task.name}` on a machine with hub access, then copy the hub cache here"
           if offline else f"`grue fetch task={task.origin or task.name}` (or the first run) downloads them")
    return f"no, not in the hub cache: {', '.join(missing)}; {way}"


def task_rows() -> list[TaskRow]:
    from grue.config import load_config
    from tasks import get_task, task_names, task_origin

    rows = []
    for name in task_names():
        task = get_task(name)
        origin = task_origin(task) + ("" if task.grue_task else "; not in the GRUE score")
        choice = task.origin or name
        profiles = []
        for profile in PROFILES:
            cfg = load_config([f"task={choice}", f"profile={profile}", "algo=zero_shot"])
            profiles.append(ProfileRow(profile, task.data_description.get(profile, "—"), cfg.model.policy,
                                       runs_here(task, profile, cfg)))
        metrics = f"task: {', '.join(task.task_metrics)} | naturalness: {', '.join(task.naturalness_metrics) or '—'}"
        rows.append(TaskRow(name, task.title, origin, metrics, ", ".join(task.rewards) or "—", profiles))
    return rows


def _wrap(label: str, text: str, width: int) -> list[str]:
    """`  label    text`, continued under the text's first character (never cut: a long word runs on)."""
    head = f"  {label:<{INDENT - 3}} "
    return textwrap.wrap(text, width=max(width, INDENT + 20), initial_indent=head, subsequent_indent=" " * INDENT,
                         break_long_words=False, break_on_hyphens=False) or [head.rstrip()]


def block_lines(row: TaskRow, width: int) -> list[str]:
    """One task as a block of lines no wider than `width` (but for a single word longer than a line)."""
    lines = textwrap.wrap(f"{row.name}: {row.title}", width=max(width, 40), subsequent_indent="  ",
                          break_long_words=False, break_on_hyphens=False)
    lines += _wrap("from", row.origin, width) + _wrap("metrics", row.metrics, width) + _wrap("rewards", row.rewards, width)
    for p in row.profiles:
        lines += _wrap(p.profile, f"policy {p.policy}; data: {p.data}", width)
        lines += _wrap("", f"runs here? {p.status}", width)
    return lines


HEADER = ("GRUE tasks, then tasks from task files (task=path, GRUE_TASKS_PATH) and plugins (GRUE_PLUGINS, "
          "entry points). 'runs here?' checks this machine's files and hub cache; nothing is downloaded.")


def print_tasks(console: Console | None = None) -> None:
    console = console or Console()  # stdout: a listing to read, pipe or grep
    rows = task_rows()
    if console.is_terminal and console.width >= WIDE:
        table = Table(title="GRUE tasks (and tasks from task files and plugins)", show_lines=True)
        for col in ("task", "from", "profile", "data", "policy", "metrics", "rewards", "runs here?"):
            table.add_column(col)
        for row in rows:
            for i, p in enumerate(row.profiles):
                first = i == 0
                table.add_row(row.name if first else "", row.origin if first else "", p.profile, p.data, p.policy,
                              row.metrics if first else "", row.rewards if first else "", p.status)
        console.print(table)
        console.print("'runs here?' checks this machine's files and hub cache; nothing is downloaded.", highlight=False)
        return
    width = console.width
    out = textwrap.wrap(HEADER, width=width) + [""]
    for row in rows:
        out += block_lines(row, width) + [""]
    console.out("\n".join(out).rstrip(), highlight=False)
