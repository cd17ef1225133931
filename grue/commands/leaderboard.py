"""`grue leaderboard ...`: build the board from run directories. Thin: parse key=value, call grue.board."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from grue.board.build import BoardOptions
from grue.board.export import FORMATS, export_board, export_tables
from grue.board.numbers.normalise import MODES
from grue.board.numbers.selection import STRATEGIES
from grue.storage.writable import check_writable_dir

__all__ = ["leaderboard_app", "export_tables"]  # export_tables: the plain function the demo prints with

leaderboard_app = typer.Typer(help="Build the GRUE leaderboard from finished runs.", no_args_is_help=True)

DEFAULT_RUNS = "runs"
DEFAULT_OUT = "leaderboard/export"
EXPORT_KEYS = {"format", "out", "runs", "normalisation", "rewards", "split", "paper", "studies", "qualify"}
EXPORT_HELP = (
    "key=value arguments: format=md|csv|json|latex|html (comma-separated, default all) out=DIR "
    f"(default {DEFAULT_OUT}) runs=DIR[,DIR...] (default {DEFAULT_RUNS}) normalisation={'|'.join(MODES)} "
    f"rewards={'|'.join(STRATEGIES)} split=test|val paper=yes|no studies=DIR[,DIR] (human studies, docs/human.md) "
    "qualify=yes|no (count only raters who pass the studies' qualification rules; default yes)"
)


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


def _choice(options: dict[str, str], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = options.get(key, default)
    if value not in allowed:
        raise typer.BadParameter(f"{key}={value!r}: use {'|'.join(allowed)}")
    return value


@leaderboard_app.command("export", help="Export the board. Example: grue leaderboard export format=md,html runs=runs")
def export(args: Optional[list[str]] = typer.Argument(None, help=EXPORT_HELP)) -> None:
    options = parse_pairs(args or [], EXPORT_KEYS)
    formats = [f for f in options.get("format", ",".join(FORMATS)).split(",") if f]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise typer.BadParameter(f"unknown format {', '.join(unknown) or '(none given)'}; use {'|'.join(FORMATS)}")
    board_options = BoardOptions(
        normalisation=_choice(options, "normalisation", MODES, "fixed"),
        rewards=_choice(options, "rewards", STRATEGIES, "select"),
        split=_choice(options, "split", ("test", "val"), "test"),
        with_paper=_choice(options, "paper", ("yes", "no"), "yes") == "yes",
        studies=tuple(p for p in options.get("studies", "").split(",") if p),
        qualify=_choice(options, "qualify", ("yes", "no"), "yes") == "yes",
    )
    runs = [Path(p) for p in options.get("runs", DEFAULT_RUNS).split(",") if p]
    missing = [str(p) for p in runs if not p.is_dir()] or ([] if runs else ["(none given)"])
    if missing:
        raise typer.BadParameter(f"runs={','.join(missing)}: not a directory; give the directory (or directories, "
                                 "comma-separated) your runs were written to (their output_dir=)")
    not_studies = [d for d in board_options.studies if not (Path(d) / "study.json").is_file()]
    if not_studies:
        raise typer.BadParameter(f"studies={','.join(not_studies)}: not a human study (grue human make-study)")
    from grue.human.study import load_study

    for study in board_options.studies:  # a broken study folder is refused before any format is written
        load_study(study)
    check_writable_dir(Path(options.get("out", DEFAULT_OUT)), "out")
    board, written = export_board(runs, Path(options.get("out", DEFAULT_OUT)), formats, board_options)
    typer.echo(f"{len(board.found.runs)} run(s) counted, {len(board.found.skipped)} skipped; {'; '.join(board.notes)}")
    for skipped in board.found.skipped:
        typer.echo(f"  skipped {skipped.path}: {'; '.join(skipped.reasons)}")
    for fmt, paths in written.items():
        typer.echo(f"{fmt}: {paths[0]}" + (f" (+{len(paths) - 1} more)" if len(paths) > 1 else ""))
