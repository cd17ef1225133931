"""--help texts that end with what extends grue on this machine: the modules of GRUE_PLUGINS, the
installed packages' `grue.plugins` and `grue.tasks` entry points, and the task files of GRUE_TASKS_PATH.

Computed when help is shown, from the environment and package metadata only (grue.plugins.installed):
no plugin is imported and torch is not loaded, so --help stays fast.
"""
from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

from grue.commands.errors import GrueGroup

WHERE = ("GRUE_PLUGINS (modules), `grue.plugins` / `grue.tasks` entry points of installed packages, "
         "GRUE_TASKS_PATH (task files); docs/extending.md")
# What each command's help adds about the plugins' registrations, after the list.
USES = {
    "grue": "Their tasks: grue tasks. Their algorithms: grue algos. Their rewards and metrics: reward=<name>, "
            "eval.metrics=<name> on any command that takes config keys.",
    "tasks": "The tasks they register are listed below with the plugin, file or entry point each came from.",
    "run": "task= takes their tasks (or task=path/to/file.yaml), algo= their algorithms (grue algos), reward= their "
           "rewards (or python:module:function), eval.metrics= their metrics.",
    "algos": "The algorithms they register are listed with 'plugin' in their from column.",
}


def plugin_lines() -> list[tuple[str, str]]:
    from grue.plugins import installed

    return installed()


def write_plugins(formatter: Any, command: str) -> None:
    found = plugin_lines()
    with formatter.section("Plugins on this machine"):
        if found:
            width = max(len(where) for where, _ in found)
            for where, what in found:  # one line each, never wrapped: a path or module name is copied whole
                formatter.write(f"{'':>{formatter.current_indent}}{where:<{width}}  {what}\n")
            formatter.write_paragraph()
            formatter.write_text(f"{USES[command]} From: {WHERE}.")
        else:
            formatter.write_text(f"None installed. Plugins come from {WHERE}.")


class PluginHelpCommand(TyperCommand):
    """A command whose --help ends with the plugins section."""

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        super().format_epilog(ctx, formatter)
        write_plugins(formatter, self.name or "run")


class PluginHelpGroup(GrueGroup):
    """The `grue` group: its --help ends with the plugins section too."""

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        super().format_epilog(ctx, formatter)
        write_plugins(formatter, "grue")
