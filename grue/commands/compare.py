"""`grue compare A B`: two result sets side by side, per metric, with significance. Thin wrapper."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from grue.board.compare import compare_sources
from grue.board.render.files import write_text


def compare(
    a: str = typer.Argument(..., help="A: a runs directory, an exported leaderboard.json, or 'paper'"),
    b: str = typer.Argument(..., help="B: a runs directory, an exported leaderboard.json, or 'paper'"),
    out: Optional[Path] = typer.Option(None, "--out", help="also write the report (Markdown) and a CSV beside it"),
) -> None:
    """Compare two result sets: per metric the difference, whether it is significant, and which side is better.

    Examples: grue compare runs paper | grue compare runs-main runs-branch | grue compare old/leaderboard.json runs
    """
    for side in (a, b):
        if side != "paper" and not Path(side).exists():
            raise typer.BadParameter(f"{side!r} is neither 'paper' nor an existing path")
    result, text = compare_sources(a, b)
    typer.echo(text)
    if out is not None:
        write_text(out, text)
        write_text(out.with_suffix(".csv"), result.to_csv(index=False))
        typer.echo(f"wrote {out} and {out.with_suffix('.csv')}")
