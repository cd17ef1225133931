"""`grue leaderboard ...`: build the board from run directories. Thin: parse key=value, call grue.board."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from grue.board.export import TABLE_FORMATS, export_tables

leaderboard_app = typer.Typer(help="Build the GRUE leaderboard from finished runs.", no_args_is_help=True)

DEFAULT_RUNS = "runs"
DEFAULT_OUT = "leaderboard/export"
EXPORT_KEYS = {"format", "out", "runs"}


@leaderboard_app.callback()
def leaderboard() -> None:
    """Build the GRUE leaderboard from finished runs (a group, so subcommands keep their names)."""


def parse_pairs(pairs: list[str], allowed: set[str]) -> dict[str, str]:
    """`key=value` words to a dict; unknown keys are an error that names the allowed ones."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected key=value, got {pair!r}")
        if key not in allowed:
            raise typer.BadParameter(f"unknown key {key!r}; use one of {', '.join(sorted(allowed))}")
        values[key] = value
    return values


@leaderboard_app.command("export", help="Export the board. Example: grue leaderboard export format=md out=board runs=runs")
def export(args: Optional[list[str]] = typer.Argument(None, help="format=md|csv|json out=DIR runs=DIR[,DIR...]")) -> None:
    options = parse_pairs(args or [], EXPORT_KEYS)
    formats = [f for f in options.get("format", ",".join(TABLE_FORMATS)).split(",") if f]
    runs = [Path(p) for p in options.get("runs", DEFAULT_RUNS).split(",") if p]
    out = Path(options.get("out", DEFAULT_OUT))
    unknown = [f for f in formats if f not in TABLE_FORMATS]
    if unknown:
        raise typer.BadParameter(f"unknown format {', '.join(unknown)}; use {'|'.join(TABLE_FORMATS)}")
    text = export_tables(runs, out, formats)
    typer.echo(text)
    typer.echo(f"wrote {', '.join(formats)} to {out}")
