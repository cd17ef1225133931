"""Queries out to a crowdsourcing platform as CSV, its answers back into the comparisons file.

Export: one row per query, columns `query_id`, `prompt`, `candidate_0` .. `candidate_{k-1}` (what a
task template shows). Import: one row per answer, with the query id, the chosen index (0-based),
the worker and the seconds taken; either grue's column names or Amazon Mechanical Turk's result
columns (`Input.query_id`, `Answer.chosen`, `WorkerId`, `WorkTimeInSeconds`, `Answer.notes`,
`AssignmentStatus`). The query's prompt and candidates come from the queries file, never from the
CSV, so an edited or truncated export cannot change what was compared.

The import is all or nothing and checks every row first: a known query, a chosen index in range, a
worker id, a finite non-negative time. Rows the requester marked Rejected on the platform are left
out (and counted), since a rejected answer is one the requester judged not to be data.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from grue.rewards.learned.comparisons import Comparison
from grue.storage.atomic import atomic_write_text
from grue.storage.inputs import InputError, Problems, csv_records, seconds_field

COLUMNS = {  # field -> accepted column names, grue's first
    "query_id": ("query_id", "Input.query_id"),
    "chosen": ("chosen", "Answer.chosen"),
    "labeler": ("labeler", "WorkerId"),
    "time_s": ("time_s", "WorkTimeInSeconds"),
    "notes": ("notes", "Answer.notes"),
    "status": ("status", "AssignmentStatus"),
}
REQUIRED = ("query_id", "chosen", "labeler")


def export_queries_csv(queries: Sequence[Comparison], path: Path) -> None:
    k = max(q.k for q in queries)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["query_id", "prompt", *[f"candidate_{i}" for i in range(k)]])
    for q in queries:
        writer.writerow([q.query_id, q.prompt, *[c.text for c in q.candidates], *[""] * (k - q.k)])
    atomic_write_text(path, out.getvalue())


@dataclass(frozen=True)
class ImportedAnswers:
    answers: list[Comparison]
    rejected: int  # rows marked Rejected on the platform, left out


def _columns(header: Sequence[str], path: Path) -> dict[str, Optional[str]]:
    cols = {f: next((name for name in names if name in header), None) for f, names in COLUMNS.items()}
    missing = [" or ".join(COLUMNS[f]) for f in REQUIRED if cols[f] is None]
    if missing:
        raise InputError(f"{path}: no {'; no '.join(missing)} column (the header has {', '.join(header)})")
    return cols


def import_answers_csv(path: Path, queries: Sequence[Comparison]) -> ImportedAnswers:
    """Answer records for the rows of a results CSV (in file order), or an InputError listing every
    bad row by its line number."""
    path = Path(path)
    header, records = csv_records(path, "results CSV", consequence="nothing imported")
    cols = _columns(header, path)
    by_id = {q.query_id: q for q in queries}
    problems, answers, rejected = Problems(path), [], 0
    for record in records:
        row = {f: record.values.get(c, "") if c else "" for f, c in cols.items()}
        if row["status"].strip().lower() == "rejected":
            rejected += 1
            continue
        query = by_id.get(row["query_id"].strip())
        if query is None:
            problems.add(record.line, f"query {row['query_id']!r} is not in the queries file")
            continue
        if not row["labeler"].strip():
            problems.add(record.line, f"no worker id in {cols['labeler']}")
            continue
        try:
            chosen = int(row["chosen"])
        except ValueError:
            problems.add(record.line, f"chosen {row['chosen']!r} is not a candidate index")
            continue
        if not 0 <= chosen < query.k:
            problems.add(record.line, f"chosen {chosen} is not a candidate index (0..{query.k - 1})")
            continue
        try:
            seconds = seconds_field(row["time_s"], "time")
        except ValueError as err:
            problems.add(record.line, str(err))
            continue
        answers.append(query.answer(chosen, row["labeler"].strip(), time_s=seconds, notes=row["notes"]))
    problems.raise_if_any("nothing imported")
    if not answers:
        raise InputError(f"{path}: no answers to import ({rejected} rejected row(s) left out)")
    return ImportedAnswers(answers, rejected)
