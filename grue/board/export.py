"""Collect runs and write the leaderboard in the requested formats; the entry points callers use.

`export_tables` is the quick view (mean ± std tables per task, md/csv/json) that the demo prints.
`export_board` writes the whole board: md, latex (booktabs), csv, json (every number) and html
(the static site).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from grue.board.render import latex, markdown
from grue.board.numbers.aggregate import aggregate, seed_frame
from grue.board.build import Board, BoardOptions, build_board
from grue.board.numbers.collect import Collection, collect
from grue.board.render.files import write_text
from grue.board.render.summary import skipped_records, to_csv, to_json
from grue.board.tables.differences_table import differences_table
from grue.board.tables.provenance_table import provenance_table
from grue.board.tables.table import Table
from grue.board.tables.task_tables import splits_of, task_table, task_tables
from grue.board.tables.views import overall_tables, questions_table, selection_table, tests_table

TABLE_FORMATS: tuple[str, ...] = ("md", "csv", "json")
FORMATS: tuple[str, ...] = ("md", "csv", "json", "latex", "html")
STEM = "leaderboard"
SITE_DIR = "site"


def skipped_lines(found: Collection) -> list[str]:
    """Markdown bullet lines naming every refused run and why."""
    if not found.skipped:
        return []
    lines = [f"**Skipped {len(found.skipped)} run(s)** (invalid or unfinished; not counted):", ""]
    lines += [f"- `{s.path}`: {'; '.join(s.reasons)}" for s in found.skipped]
    return lines


def export_tables(run_dirs: Sequence[Path], out_dir: Path, formats: Iterable[str] = TABLE_FORMATS) -> str:
    """Write mean ± std tables per task and algorithm; return the Markdown text.

    The Markdown is returned even when "md" is not among `formats`, so a caller (the demo) can
    print it without reading a file back.
    """
    wanted = set(formats)
    unknown = wanted - set(TABLE_FORMATS)
    if unknown:
        raise ValueError(f"export_tables writes {', '.join(TABLE_FORMATS)}; not {', '.join(sorted(unknown))}")
    found = collect(run_dirs)
    agg = aggregate(seed_frame(found.runs))
    preface = [f"{len(found.runs)} run(s) counted from {', '.join(str(d) for d in run_dirs)}."]
    if agg.empty:
        preface.append("No finished runs found.")
    text = markdown.render_document("GRUE leaderboard", task_tables(agg), preface, skipped_lines(found))
    out_dir = Path(out_dir)
    if "md" in wanted:
        write_text(out_dir / f"{STEM}.md", text)
    if "csv" in wanted:
        write_text(out_dir / f"{STEM}.csv", to_csv(agg))
    if "json" in wanted:
        write_text(out_dir / f"{STEM}.json", to_json({"rows": agg, "skipped": skipped_records(found.skipped)}))
    return text


def document_tables(board: Board, every_split: bool = True) -> list[Table]:
    """The board as a sequence of tables: overall, per task (each split), selection, tests, questions, and the
    code versions that made the runs."""
    tables = overall_tables(board)
    for task in board.tasks:
        splits = splits_of(board.agg, task) if every_split else [None]
        tables += [task_table(board.agg, task, split, board.options.with_paper) for split in splits]
    tables.append(selection_table(board))
    differing = differences_table(board)  # each RL row against its PPO row (tables/differences_table.py)
    tables += [differing] if differing.rows else []
    if not board.tests.empty:
        tables.append(tests_table(board.tests))
    if not board.questions.empty:
        tables.append(questions_table(board))
    made_by = provenance_table(board)
    tables += [made_by] if made_by.rows else []
    return tables


ABOUT = "ABOUT.md"  # a runs folder's own note on what its board can and cannot show
ABOUT_LIMIT = 8_000  # characters: a note, not a second document


def about_lines(run_dirs: Sequence[Path]) -> list[str]:
    """The `ABOUT.md` of each runs folder that has one, as preface lines under the board's title.

    A study says there what its runs are for and what they cannot show (models, budgets, synthetic data), so
    the page made from them says it too and one export command remakes the whole page. The text is the
    folder's, not grue's: it is cut at ABOUT_LIMIT characters and its HTML is escaped like every line."""
    lines: list[str] = []
    for folder in run_dirs:
        note = Path(folder) / ABOUT
        if note.is_file():
            with note.open(encoding="utf-8", errors="replace") as handle:  # a huge file is not read whole
                text = handle.read(ABOUT_LIMIT).strip()
            lines += [*text.splitlines(), ""]
    return lines


def board_markdown(board: Board) -> str:
    preface = [*about_lines(board.run_dirs),
               f"{len(board.found.runs)} run(s) counted from {', '.join(str(d) for d in board.run_dirs)}.",
               *(f"- {n}" for n in board.notes), "- formulas and choices: docs/leaderboard.md"]
    return markdown.render_document("GRUE leaderboard", document_tables(board), preface, skipped_lines(board.found))


def _write_csvs(board: Board, out: Path) -> list[Path]:
    frames = {"": board.agg, "-scores": board.entries, "-overall": board.overall, "-selection": board.selection,
              "-tests": board.tests, "-questions": board.questions}
    return [write_text(out / f"{STEM}{suffix}.csv", to_csv(frame)) for suffix, frame in frames.items()]


def _json(board: Board) -> str:
    from dataclasses import asdict

    return to_json({"options": asdict(board.options), "notes": board.notes, "rows": board.agg, "scores": board.entries,
                    "overall": board.overall, "selection": board.selection, "tests": board.tests,
                    "questions": board.questions, "runs": [str(r.path) for r in board.found.runs],
                    "skipped": skipped_records(board.found.skipped)})


def export_board(run_dirs: Sequence[Path], out_dir: Path, formats: Iterable[str] = FORMATS,
                 options: BoardOptions | None = None) -> tuple[Board, dict[str, list[Path]]]:
    """Build the board once and write every requested format; returns the board and written paths."""
    wanted = list(dict.fromkeys(formats))
    unknown = [f for f in wanted if f not in FORMATS]
    if unknown:
        raise ValueError(f"unknown format {', '.join(unknown)}; use {'|'.join(FORMATS)}")
    board = build_board(run_dirs, options)
    out = Path(out_dir)
    written: dict[str, list[Path]] = {}
    for fmt in wanted:
        if fmt == "md":
            written[fmt] = [write_text(out / f"{STEM}.md", board_markdown(board))]
        elif fmt == "latex":
            written[fmt] = [write_text(out / f"{STEM}.tex", latex.render_document(document_tables(board, every_split=False)))]
        elif fmt == "csv":
            written[fmt] = _write_csvs(board, out)
        elif fmt == "json":
            written[fmt] = [write_text(out / f"{STEM}.json", _json(board))]
        else:
            from grue.board.render.site import write_site

            written[fmt] = write_site(board, out / SITE_DIR)
    return board, written
