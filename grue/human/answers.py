"""Raters, their progress and their answers in the study database, each change one transaction.

A rater reaches only their own assignments through their token; nothing here reads or writes
another rater's rows. A submission is accepted only for the item the rater is on now, once the
protocol's minimum reading time has passed since that item was first shown; anything else (an
unknown item, an item answered before, a replay) is refused and changes nothing.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError

from grue.human.db import answers, assignments, raters, views
from grue.human.order import candidate_order
from grue.human.study import Study
from grue.human.validate import AnswerRefused, parse_answer


def token_hash(token: str) -> str:
    """Tokens are stored hashed: a copy of the database does not hand out rater links."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def register_raters(engine: Engine, lists: Mapping[str, list[str]], tokens: Mapping[str, str]) -> None:
    """Create local raters with their token and their ordered assignments."""
    with engine.begin() as conn:
        for rater, items in lists.items():
            conn.execute(insert(raters).values(id=rater, token_hash=token_hash(tokens[rater]), source="local"))
            conn.execute(insert(assignments), [{"rater_id": rater, "item_id": item, "position": i}
                                               for i, item in enumerate(items)])


def rater_for_token(engine: Engine, token: str) -> str | None:
    with engine.begin() as conn:
        return conn.execute(select(raters.c.id).where(raters.c.token_hash == token_hash(token))).scalar()


@dataclass(frozen=True)
class Progress:
    """Where a rater stands: the item to answer now (None when finished), answered and total counts,
    and when the current item was first shown (the reading-time clock; reloads do not restart it)."""

    item_id: str | None
    done: int
    total: int
    shown_at: float | None = None


def _progress(conn: Connection, rater: str) -> Progress:
    assigned = conn.execute(select(assignments.c.item_id).where(assignments.c.rater_id == rater)
                            .order_by(assignments.c.position)).scalars().all()
    answered = set(conn.execute(select(answers.c.item_id).where(answers.c.rater_id == rater)).scalars())
    current = next((item for item in assigned if item not in answered), None)
    return Progress(current, sum(item in answered for item in assigned), len(assigned))


def current_item(engine: Engine, rater: str, now: float | None = None) -> Progress:
    """The rater's progress; the current item's first showing is recorded (time per item starts there)."""
    with engine.begin() as conn:
        progress = _progress(conn, rater)
        if progress.item_id is None:
            return progress
        seen = conn.execute(select(views.c.first_shown_at).where(
            views.c.rater_id == rater, views.c.item_id == progress.item_id)).scalar()
        if seen is None:
            seen = time.time() if now is None else now
            conn.execute(insert(views).values(rater_id=rater, item_id=progress.item_id, first_shown_at=seen))
        return Progress(progress.item_id, progress.done, progress.total, seen)


def shown_order(study: Study, rater: str, item_id: str) -> list[int]:
    return candidate_order(study.seed, rater, item_id, len(study.items[item_id].candidates))


def _same_answer(study: Study, rater: str, item_id: str, fields: Mapping[str, str], stored: str) -> bool:
    """Whether `fields` are the answer already stored (a resubmission, not a change of mind)."""
    try:
        return parse_answer(study, study.items[item_id], fields, shown_order(study, rater, item_id)) == json.loads(stored)
    except AnswerRefused:
        return False


def submit(engine: Engine, study: Study, rater: str, item_id: str, fields: Mapping[str, str],
           now: float | None = None) -> None:
    """Store `rater`'s answer to `item_id`, or raise AnswerRefused with nothing changed. The same answer
    sent again (a double-click on submit) is accepted and changes nothing; a different one is refused."""
    now = time.time() if now is None else now
    with engine.begin() as conn:
        progress = _progress(conn, rater)
        if item_id != progress.item_id:
            mine = conn.execute(select(assignments.c.item_id).where(
                assignments.c.rater_id == rater, assignments.c.item_id == item_id)).scalar()
            if mine is None:
                raise AnswerRefused(f"unknown item {item_id!r}", status=404)
            answered = conn.execute(select(answers.c.answer).where(
                answers.c.rater_id == rater, answers.c.item_id == item_id)).scalar()
            if answered is not None:
                if _same_answer(study, rater, item_id, fields, answered):
                    return  # a double-click or a resent form: already stored, so it succeeds as it did
                raise AnswerRefused("this item is already answered; a repeated submission changes nothing", 409)
            raise AnswerRefused("this is not the item on your screen; reload the page", 409)
        shown_at = conn.execute(select(views.c.first_shown_at).where(
            views.c.rater_id == rater, views.c.item_id == item_id)).scalar()
        if shown_at is None:
            raise AnswerRefused("this item was never shown; reload the page", 409)
        minimum = float(study.protocol.get("min_read_seconds", 0)) if study.kind == "ratings" else 0.0
        if now - shown_at < minimum:
            raise AnswerRefused(f"answered before the minimum reading time of {minimum:g} s; read the text first")
        answer = parse_answer(study, study.items[item_id], fields, shown_order(study, rater, item_id))
        try:
            conn.execute(insert(answers).values(rater_id=rater, item_id=item_id, answer=json.dumps(answer),
                                                seconds=now - shown_at, submitted_at=now, source="local"))
        except IntegrityError:
            raise AnswerRefused("this item is already answered; a repeated submission changes nothing", 409) from None
