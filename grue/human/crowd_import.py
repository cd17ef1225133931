"""A platform's results CSV back into the study database, beside the local app's answers.

Reads Mechanical Turk's batch-results layout (`WorkerId`, `WorkTimeInSeconds`, `AssignmentStatus`,
`Input.<field>`, `Answer.<field>`); plain column names without the prefixes work too. The import
is all or nothing: every row is checked first (known item, answers in range, a worker id, a finite
time, no worker answering an item twice, nothing imported before), every problem is listed by the
line an editor shows, and one bad row stores nothing. Rejected assignments are left out and counted.
Workers become raters named `<platform>:<worker id>`.

A comparison's `choice` is a position on the rater's screen. The row carries the texts shown at each
position (`candidate_0`..), so the candidate behind a position is found by its text: a batch of one
row per item, a platform file without the `assignment` column of older one-row-per-assignment
batches, or one with its slots renumbered, all map every choice to the right system. Without the
texts, an `assignment` slot gives the order, and must be one of the study's slots.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert, select

from grue.errors import GrueUserError
from grue.human.crowd_export import csv_order
from grue.human.db import answers, open_database, raters
from grue.human.study import Item, Study
from grue.human.validate import AnswerRefused, parse_answer
from grue.storage.inputs import InputError, Problems, csv_records, seconds_field


class ImportRefused(GrueUserError, ValueError):
    """A results file that cannot be imported; nothing was stored."""


@dataclass(frozen=True)
class ImportedAnswer:
    rater: str
    item: str
    answer: dict[str, int | list[int]]
    seconds: float | None
    line: int


@dataclass(frozen=True)
class Imported:
    stored: int
    rejected: int  # rows marked Rejected on the platform, left out


def _field(row: dict[str, str], name: str, prefix: str) -> str | None:
    value = row.get(f"{prefix}{name}", row.get(name))
    return value.strip() if isinstance(value, str) else None


def _shown_texts(row: dict[str, str], k: int) -> list[str] | None:
    """The candidate texts the row showed, by position; None when the file does not carry them."""
    texts = [row.get(f"Input.candidate_{p}", row.get(f"candidate_{p}")) for p in range(k)]
    return None if any(t is None for t in texts) else texts


def _order_from_texts(item: Item, texts: list[str], slot_order: list[int] | None) -> list[int]:
    """The candidate index shown at each position, found by text. Identical texts are interchangeable,
    so the slot's order settles them when it fits; any text that is no candidate's is refused."""
    if slot_order is not None and all(item.candidates[i].text == t for i, t in zip(slot_order, texts)):
        return slot_order
    left = list(range(len(item.candidates)))
    order = []
    for position, text in enumerate(texts):
        index = next((i for i in left if item.candidates[i].text == text), None)
        if index is None:
            raise AnswerRefused(f"candidate_{position}'s text is not one of {item.id}'s candidates "
                                "(was the batch file edited, or is it another study's?)")
        left.remove(index)
        order.append(index)
    return order


def _comparison_order(study: Study, item: Item, row: dict[str, str]) -> list[int]:
    assignment = _field(row, "assignment", "Input.")
    slot_order = None
    if assignment:
        if not assignment.isdigit() or not 1 <= int(assignment) <= study.raters_per_item:
            raise AnswerRefused(f"assignment {assignment!r} is not one of the study's slots "
                                f"1..{study.raters_per_item}")
        slot_order = csv_order(study, item, int(assignment))
    texts = _shown_texts(row, len(item.candidates))
    if texts is not None:
        return _order_from_texts(item, texts, slot_order)
    if slot_order is None:
        raise AnswerRefused("neither the candidate texts nor the assignment slot: cannot tell which candidate "
                            "was chosen (keep the Input.candidate_* or Input.assignment columns)")
    return slot_order


def _parse_row(study: Study, row: dict[str, str], platform: str, line: int) -> ImportedAnswer:
    worker, item_id = _field(row, "WorkerId", ""), _field(row, "item_id", "Input.")
    if not worker:
        raise AnswerRefused("no WorkerId")
    if item_id not in study.items:
        raise AnswerRefused(f"unknown item {item_id!r}")
    item = study.items[item_id]
    names = study.axes if study.kind == "ratings" else ["choice"]
    fields = {name: value for name in names if (value := _field(row, name, "Answer.")) not in (None, "")}
    order = _comparison_order(study, item, row) if study.kind == "comparisons" else []
    try:
        seconds = seconds_field(_field(row, "WorkTimeInSeconds", ""), "WorkTimeInSeconds")
    except ValueError as err:
        raise AnswerRefused(str(err)) from None
    return ImportedAnswer(f"{platform}:{worker}", item_id, parse_answer(study, item, fields, order), seconds, line)


def _read(study: Study, path: Path, platform: str) -> tuple[list[ImportedAnswer], int, Problems]:
    try:
        _, records = csv_records(path, "results CSV", consequence="nothing imported")
    except InputError as err:
        said = str(err)
        raise ImportRefused(said if "nothing imported" in said else f"nothing imported: {said}") from None
    problems, parsed, rejected = Problems(path), [], 0
    for record in records:
        if (_field(record.values, "AssignmentStatus", "") or "").lower() == "rejected":
            rejected += 1
            continue
        try:
            parsed.append(_parse_row(study, record.values, platform, record.line))
        except AnswerRefused as err:
            problems.add(record.line, str(err))
    first: dict[tuple[str, str], int] = {}
    for answer in parsed:
        key = (answer.rater, answer.item)
        if key in first:
            problems.add(answer.line, f"{answer.rater} answered {answer.item} already on line {first[key]}")
        first.setdefault(key, answer.line)
    return parsed, rejected, problems


def import_results(study: Study, path: Path, platform: str = "mturk") -> Imported:
    """Store every accepted row of `path`, or nothing; says how many were stored and left out."""
    parsed, rejected, problems = _read(study, path, platform)
    if not parsed and not problems:
        raise ImportRefused(f"{path}: nothing imported: no answers in the file ({rejected} rejected row(s) left out)")
    engine = open_database(study.db_path)
    try:
        with engine.begin() as conn:
            stored = {(r, i) for r, i in conn.execute(select(answers.c.rater_id, answers.c.item_id))}
            for answer in parsed:
                if (answer.rater, answer.item) in stored:
                    problems.add(answer.line, f"{answer.rater} already has an answer for {answer.item} "
                                              "(was this file imported before?)")
            if problems:
                raise ImportRefused(problems.message("nothing imported"))
            known = set(conn.execute(select(raters.c.id)).scalars())
            new = sorted({a.rater for a in parsed} - known)
            if new:
                conn.execute(insert(raters), [{"id": r, "token_hash": None, "source": f"import:{path.name}"} for r in new])
            now = time.time()
            conn.execute(insert(answers), [
                {"rater_id": a.rater, "item_id": a.item, "answer": json.dumps(a.answer), "seconds": a.seconds,
                 "submitted_at": now, "source": f"import:{path.name}"} for a in parsed])
    finally:
        engine.dispose()
    return Imported(len(parsed), rejected)
