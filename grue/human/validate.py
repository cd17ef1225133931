"""One answer's fields to the stored answer, or a clear refusal. Shared by the app and the CSV import.

Ratings: exactly one integer per axis, inside the scale. Comparisons: `choice`, the position the
rater saw, mapped back to the candidate's index through the order that rater was shown.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from grue.errors import GrueUserError
from grue.human.study import Item, Study


class AnswerRefused(GrueUserError, ValueError):
    """An answer that cannot be stored; `status` is the HTTP status the app answers with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _integer(name: str, raw: str | None) -> int:
    try:
        return int(str(raw).strip())
    except ValueError:
        raise AnswerRefused(f"{name} must be a whole number, got {raw!r}") from None


def parse_answer(study: Study, item: Item, fields: Mapping[str, str],
                 shown_order: Sequence[int]) -> dict[str, int | list[int]]:
    """The answer to store for `item`; any missing, extra or out-of-range field is an AnswerRefused.
    A comparison keeps the order the rater saw (`order`), for position-bias checks and exports."""
    expected = set(study.axes) if study.kind == "ratings" else {"choice"}
    missing, extra = expected - set(fields), set(fields) - expected
    if missing:
        raise AnswerRefused(f"missing answer for {', '.join(sorted(missing))}")
    if extra:
        raise AnswerRefused(f"unexpected field(s) {', '.join(sorted(extra))}: the form was altered")
    if study.kind == "ratings":
        low, high = study.scale
        answer = {axis: _integer(axis, fields[axis]) for axis in study.axes}
        for axis, value in answer.items():
            if not low <= value <= high:
                raise AnswerRefused(f"{axis} must be between {low} and {high}, got {value}")
        return answer
    position = _integer("choice", fields["choice"])
    if not 0 <= position < len(item.candidates):
        raise AnswerRefused(f"choice must be one of the {len(item.candidates)} candidates shown, got {position}")
    return {"choice": shown_order[position], "order": list(shown_order)}
