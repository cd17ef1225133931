"""Queries out to a crowdsourcing platform as CSV, its answers back into the comparisons file.

Export: one row per query, columns `query_id`, `prompt`, `candidate_0` .. `candidate_{k-1}` (what a
task template shows). Import: one row per answer, with the query id, the chosen index (0-based),
the worker and the seconds taken; either grue's column names or Amazon Mechanical Turk's result
columns (`Input.query_id`, `Answer.chosen`, `WorkerId`, `WorkTimeInSeconds`, `Answer.notes`).
The query's prompt and candidates come from the queries file, never from the CSV, so an edited or
truncated export cannot change what was compared.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Sequence

from grue.rewards.learned.comparisons import Comparison

COLUMNS = {  # field -> accepted column names, grue's first
    "query_id": ("query_id", "Input.query_id"),
    "chosen": ("chosen", "Answer.chosen"),
    "labeler": ("labeler", "WorkerId"),
    "time_s": ("time_s", "WorkTimeInSeconds"),
    "notes": ("notes", "Answer.notes"),
}


def export_queries_csv(queries: Sequence[Comparison], path: Path) -> None:
    k = max(q.k for q in queries)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["query_id", "prompt", *[f"candidate_{i}" for i in range(k)]])
        for q in queries:
            writer.writerow([q.query_id, q.prompt, *[c.text for c in q.candidates], *[""] * (k - q.k)])


def _column(header: Sequence[str], field: str, path: Path, required: bool = True) -> str | None:
    found = next((name for name in COLUMNS[field] if name in header), None)
    if found is None and required:
        raise ValueError(f"{path}: no {' or '.join(COLUMNS[field])} column")
    return found


def import_answers_csv(path: Path, queries: Sequence[Comparison]) -> list[Comparison]:
    """Answer records for the rows of a results CSV (in file order)."""
    by_id = {q.query_id: q for q in queries}
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        cols = {f: _column(header, f, path, required=f in ("query_id", "chosen", "labeler")) for f in COLUMNS}
        answers = []
        for number, row in enumerate(reader, start=2):
            where = f"{path}:{number}"
            query = by_id.get(row[cols["query_id"]])
            if query is None:
                raise ValueError(f"{where}: query {row[cols['query_id']]!r} is not in the queries file")
            try:
                chosen = int(row[cols["chosen"]])
            except ValueError:
                raise ValueError(f"{where}: chosen {row[cols['chosen']]!r} is not a candidate index") from None
            if not 0 <= chosen < query.k:
                raise ValueError(f"{where}: chosen {chosen} is not a candidate index (0..{query.k - 1})")
            time_s = row.get(cols["time_s"] or "", "") or None
            answers.append(query.answer(chosen, row[cols["labeler"]], time_s=float(time_s) if time_s else None,
                                        notes=row.get(cols["notes"] or "", "") or ""))
    return answers
