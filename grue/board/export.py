"""Collect runs and write the leaderboard in the requested formats; the one entry point callers use."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from grue.board.aggregate import aggregate, seed_frame
from grue.board.collect import Collection, collect
from grue.board.files import write_text
from grue.board.markdown import render_document
from grue.board.summary import skipped_records, to_csv, to_json
from grue.board.task_tables import task_tables

TABLE_FORMATS: tuple[str, ...] = ("md", "csv", "json")
STEM = "leaderboard"


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
    found = collect(run_dirs)
    agg = aggregate(seed_frame(found.runs))
    preface = [f"{len(found.runs)} run(s) counted from {', '.join(str(d) for d in run_dirs)}."]
    if agg.empty:
        preface.append("No finished runs found.")
    text = render_document("GRUE leaderboard", task_tables(agg), preface, skipped_lines(found))
    out_dir = Path(out_dir)
    wanted = set(formats)
    unknown = wanted - set(TABLE_FORMATS)
    if unknown:
        raise ValueError(f"export_tables writes {', '.join(TABLE_FORMATS)}; not {', '.join(sorted(unknown))}")
    if "md" in wanted:
        write_text(out_dir / f"{STEM}.md", text)
    if "csv" in wanted:
        write_text(out_dir / f"{STEM}.csv", to_csv(agg))
    if "json" in wanted:
        write_text(out_dir / f"{STEM}.json", to_json({"rows": agg, "skipped": skipped_records(found.skipped)}))
    return text
