"""`grue compare A B`: two result sets side by side, per metric, with significance; two run directories on the same
prompts, paired prompt by prompt (grue/board/paired_runs.py); `grue compare RUNS --rows A,B`: what differs between
two rows of one task. Thin wrapper."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from grue.board.render.files import write_text
from grue.commands.errors import UsageError
from grue.storage.outputs import refuse_replacing_inputs
from grue.storage.run_layout import RESULTS
from grue.storage.writable import check_writable_file


EXPORT_ROW_KEYS = {"task", "algo", "split", "metric", "reward", "mean", "std", "n"}  # what compare reads of a row


TEXT_KEYS = ("task", "algo", "split", "metric")
NUMBER_KEYS = ("mean", "std", "n")  # null where a metric was unavailable
MAX_SHOWN = 5


def _row_problem(row: dict) -> str | None:
    """What is wrong with the types of an exported row's fields, or None."""
    bad = [f"'{k}' is {type(row[k]).__name__}, not text" for k in TEXT_KEYS
           if not isinstance(row[k], str) or not row[k]]
    bad += [f"'reward' is {type(row['reward']).__name__}, not text"] if not isinstance(row["reward"], (str, type(None))) \
        else []
    bad += [f"'{k}' is {type(row[k]).__name__}, not a number" for k in NUMBER_KEYS
            if row[k] is not None and (not isinstance(row[k], (int, float)) or isinstance(row[k], bool))]
    return ", ".join(bad) or None


def _rows_of(spec: str) -> int | None:
    """How many rows an exported board holds (None for a runs directory or 'paper')."""
    path = Path(spec)
    if not path.is_file():
        return None
    return len(json.loads(path.read_text(encoding="utf-8")).get("rows", []))


def checked_side(spec: str) -> str:
    """`spec` as compare_sources reads it, or a UsageError saying what it is not; a run's own results.json
    stands for its run directory."""
    path = Path(spec)
    if spec == "paper" or path.is_dir():
        if path.is_dir() and next(path.rglob(RESULTS), None) is None:
            raise UsageError(f"{spec} holds no results.json: not a runs directory (finished runs write one)")
        return spec
    if not path.exists():
        raise UsageError(f"{spec!r} is neither 'paper' nor an existing runs directory or leaderboard.json")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise UsageError(f"{spec} is not a JSON file ({err}); give a runs directory or an exported "
                         "leaderboard.json") from None
    if isinstance(doc, dict) and isinstance(doc.get("rows"), list):
        broken = next((i for i, row in enumerate(doc["rows"]) if not isinstance(row, dict)
                       or not EXPORT_ROW_KEYS <= row.keys()), None)
        if broken is not None:
            raise UsageError(f"{spec}: row {broken} lacks some of {', '.join(sorted(EXPORT_ROW_KEYS))}; export the "
                             "board again with `grue leaderboard export format=json`")
        problems = [f"row {i}: {why}" for i, row in enumerate(doc["rows"]) if (why := _row_problem(row))]
        if problems:
            more = f" (first {MAX_SHOWN} of {len(problems)})" if len(problems) > MAX_SHOWN else ""
            raise UsageError(f"{spec}: {len(problems)} ill-typed row(s){more}: {'; '.join(problems[:MAX_SHOWN])}; "
                             "export the board again with `grue leaderboard export format=json`")
        return spec
    if isinstance(doc, dict) and "metrics" in doc and path.name == RESULTS:
        return str(path.parent)
    raise UsageError(f"{spec} is neither an exported leaderboard.json (no 'rows') nor a run's results.json; "
                     "give a runs directory, a leaderboard.json, or 'paper'")


ROWS_HELP = ("A,B: two rows of one task under the runs directory A, to show what differs between them (critic, "
             "regulariser, group size, epochs, tokens, every differing config key); a bad name lists the valid rows")


def _split_rows(rows: str) -> tuple[str, str]:
    names = [name.strip() for name in rows.split(",")]
    if len(names) != 2 or not all(names):
        raise UsageError(f"--rows {rows!r}: give two row names separated by a comma, e.g. --rows ppo,grpo")
    return names[0], names[1]


def _compare_rows(runs: str, b: Optional[str], rows: str, task: Optional[str], out: Optional[Path]) -> None:
    """`grue compare RUNS --rows A,B`: what differs between two rows of one task."""
    from grue.board.compare import RowNotFound, pick_rows, rows_report

    if b is not None:
        raise UsageError(f"--rows compares two rows of one runs directory; give only that directory, not B ({b})")
    if not Path(runs).is_dir():
        raise UsageError(f"{runs!r} is not a runs directory; --rows reads the rows of the runs under one directory")
    runs = checked_side(runs)
    name_a, name_b = _split_rows(rows)
    if out is not None:
        refuse_replacing_inputs(out, [Path(runs)], "--out")
        check_writable_file(out, "--out")
    try:
        row_a, row_b = pick_rows(runs, name_a, name_b, task)
    except RowNotFound as err:
        raise UsageError(str(err)) from None
    text = rows_report(row_a, row_b, name_a, name_b)
    typer.echo(text)
    if out is not None:
        write_text(out, text)
        typer.echo(f"wrote {out}")


def _compare_runs(a: str, b: str, split: Optional[str], out: Optional[Path]) -> None:
    """`grue compare RUN_A RUN_B`: two run directories on the same prompts, paired prompt by prompt."""
    from grue.board.paired_runs import compare_runs, paired_report

    if out is not None:
        refuse_replacing_inputs(out, [Path(a), Path(b)], "--out")
        check_writable_file(out, "--out")
    text = paired_report(compare_runs(a, b, split))
    typer.echo(text)
    if out is not None:
        write_text(out, text)
        typer.echo(f"wrote {out}")


def compare(
    a: str = typer.Argument(..., help="A: a runs directory, an exported leaderboard.json, or 'paper'; or one run's "
                                      "directory, paired prompt by prompt with B's"),
    b: Optional[str] = typer.Argument(None, help="B: a runs directory, an exported leaderboard.json, or 'paper', or "
                                                 "one run's directory (omitted with --rows)"),
    rows: Optional[str] = typer.Option(None, "--rows", help=ROWS_HELP),
    task: Optional[str] = typer.Option(None, "--task", help="with --rows: the task whose rows they are (needed "
                                                            "only when both names exist on several tasks)"),
    out: Optional[Path] = typer.Option(None, "--out", help="also write the report (Markdown) and a CSV beside it "
                                                           "(with --rows or two runs: the report only)"),
    split: Optional[str] = typer.Option(None, "--split", help="with two run directories: the one split to pair "
                                                              "(default: every split both report)"),
) -> None:
    """Compare two result sets: per metric the difference, whether it is significant, and which side is better.
    With --rows A,B: what differs between two rows of one task of one runs directory (the settings a referee
    checks before reading their scores side by side).

    Two run directories (each holding its results.json) on the same prompts are compared prompt by prompt: per
    metric the mean of B - A with its standard error and n, and a one-line verdict (one seed per side suffices).

    Examples: grue compare runs paper | grue compare runs-main runs-branch | grue compare old/leaderboard.json runs
    | grue compare runs --rows ppo,grpo --task imdb | grue compare runs/tone-mini-zero_shot-seed0-<hash>
    runs/tone-mini-ppo-seed0-<hash>
    """
    from grue.board.paired_runs import is_run_dir

    if b is not None and rows is None and is_run_dir(a) and is_run_dir(b):
        return _compare_runs(a, b, split, out)
    if split is not None:
        raise UsageError("--split goes with two run directories (a paired comparison on the same prompts)")
    if rows is not None:
        return _compare_rows(a, b, rows, task, out)
    if task is not None:
        raise UsageError("--task goes with --rows (two rows of one task); without it every task is compared")
    if b is None:
        raise UsageError("give B (a runs directory, an exported leaderboard.json, or 'paper'), or --rows A,B to see "
                         f"what differs between two rows of {a}")
    given = [Path(side) for side in (a, b) if side != "paper"]
    a, b = checked_side(a), checked_side(b)
    empty = [side for side in (a, b) if _rows_of(side) == 0]
    if empty:
        raise UsageError(f"{empty[0]} holds no rows (a board exported before any run finished); nothing to compare")
    if out is not None:
        for written in (out, out.with_suffix(".csv")):
            refuse_replacing_inputs(written, given, "--out")
            check_writable_file(written, "--out")
    from grue.board.compare import compare_sources  # pandas and scipy: loaded for a comparison, not for `grue --help`

    result, text = compare_sources(a, b)
    typer.echo(text)
    if out is not None:
        write_text(out, text)
        write_text(out.with_suffix(".csv"), result.to_csv(index=False))
        typer.echo(f"wrote {out} and {out.with_suffix('.csv')}")
