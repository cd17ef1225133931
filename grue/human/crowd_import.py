"""A platform's results CSV back into the study database, beside the local app's answers.

Reads Mechanical Turk's batch-results layout (`WorkerId`, `WorkTimeInSeconds`, `AssignmentStatus`,
`Input.<field>`, `Answer.<field>`); plain column names without the prefixes work too. The import
is all or nothing: every row is checked first (known item, answers in range, no worker answering
an item twice, nothing imported before), and one bad row stores nothing. Rejected assignments
are skipped. Workers become raters named `<platform>:<worker id>`.
"""
from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert, select

from grue.human.crowd_export import csv_order
from grue.human.db import answers, open_database, raters
from grue.human.study import Study
from grue.human.validate import AnswerRefused, parse_answer

MAX_PROBLEMS_SHOWN = 5


class ImportRefused(ValueError):
    """A results file that cannot be imported; nothing was stored."""


@dataclass(frozen=True)
class ImportedAnswer:
    rater: str
    item: str
    answer: dict[str, int | list[int]]
    seconds: float | None


def _field(row: dict[str, str], name: str, prefix: str) -> str | None:
    value = row.get(f"{prefix}{name}", row.get(name))
    return value.strip() if isinstance(value, str) else None


def _parse_row(study: Study, row: dict[str, str], platform: str) -> ImportedAnswer | None:
    if (_field(row, "AssignmentStatus", "") or "").lower() == "rejected":
        return None
    worker, item_id = _field(row, "WorkerId", ""), _field(row, "item_id", "Input.")
    if not worker:
        raise AnswerRefused("no WorkerId")
    if item_id not in study.items:
        raise AnswerRefused(f"unknown item {item_id!r}")
    item = study.items[item_id]
    names = study.axes if study.kind == "ratings" else ["choice"]
    fields = {name: value for name in names if (value := _field(row, name, "Answer.")) not in (None, "")}
    assignment = _field(row, "assignment", "Input.") or "1"
    if study.kind == "comparisons" and not assignment.isdigit():
        raise AnswerRefused(f"assignment {assignment!r} is not a number")
    order = csv_order(study, item, int(assignment)) if study.kind == "comparisons" else []
    seconds = _field(row, "WorkTimeInSeconds", "")
    try:
        seconds_value = float(seconds) if seconds else None
    except ValueError:
        raise AnswerRefused(f"WorkTimeInSeconds {seconds!r} is not a number") from None
    return ImportedAnswer(f"{platform}:{worker}", item_id, parse_answer(study, item, fields, order), seconds_value)


def import_results(study: Study, path: Path, platform: str = "mturk") -> int:
    """Store every accepted row of `path`; returns how many answers were stored."""
    try:
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"))))
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise ImportRefused(f"cannot read {path}: {err}") from None
    parsed: list[ImportedAnswer] = []
    problems: list[str] = []
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        try:
            answer = _parse_row(study, row, platform)
        except AnswerRefused as err:
            problems.append(f"line {number}: {err}")
            continue
        if answer is not None:
            parsed.append(answer)
    seen: set[tuple[str, str]] = set()
    for answer in parsed:
        key = (answer.rater, answer.item)
        if key in seen:
            problems.append(f"{answer.rater} answered {answer.item} twice in this file")
        seen.add(key)
    engine = open_database(study.db_path)
    try:
        with engine.begin() as conn:
            stored = {(r, i) for r, i in conn.execute(select(answers.c.rater_id, answers.c.item_id))}
            problems += [f"{r} already has an answer for {i} (was this file imported before?)" for r, i in sorted(seen & stored)]
            if problems:
                shown = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
                more = f" (and {len(problems) - MAX_PROBLEMS_SHOWN} more)" if len(problems) > MAX_PROBLEMS_SHOWN else ""
                raise ImportRefused(f"{path.name}: nothing imported: {shown}{more}")
            known = set(conn.execute(select(raters.c.id)).scalars())
            new = sorted({a.rater for a in parsed} - known)
            if new:
                conn.execute(insert(raters), [{"id": r, "token_hash": None, "source": f"import:{path.name}"} for r in new])
            now = time.time()
            if parsed:
                conn.execute(insert(answers), [
                    {"rater_id": a.rater, "item_id": a.item, "answer": json.dumps(a.answer), "seconds": a.seconds,
                     "submitted_at": now, "source": f"import:{path.name}"} for a in parsed])
    finally:
        engine.dispose()
    return len(parsed)
