"""A predictions file for `grue score`: read line by line, every problem named with its file and line.

One JSON object per line with ``id`` and ``generation``, optionally ``references`` (a string or a list of
strings), ``prompt`` and ``meta``. The file is a user's, made by another system, so nothing in it is
trusted: encoding, JSON, types, duplicate ids and ids the task's split does not have are all checked,
and how much of the split it covers is measured (a file of 5 ids must not pass for a score of 200).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Optional

from grue.commands.errors import UsageError
from grue.storage.inputs import encoding_guess


class PredictionsError(UsageError):
    """A predictions file that cannot be scored as it is."""


def _text_lines(path: Path) -> list[tuple[int, str]]:
    if not path.is_file():
        raise PredictionsError(f"predictions={path} is not a file; give a JSONL file of id and generation per line")
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:4096]:  # UTF-16, or not text at all
        raise PredictionsError(f"{path}: not UTF-8 ({encoding_guess(data)})")
    lines = []
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            lines.append((number, raw.decode("utf-8")))
        except UnicodeDecodeError:
            raise PredictionsError(f"{path}:{number}: not UTF-8 text; save the file as UTF-8") from None
    return lines


def _checked_row(path: Path, number: int, line: str, known_ids: Optional[Collection[str]]) -> dict[str, Any]:
    where = f"{path}:{number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        raise PredictionsError(f"{where}: not JSON ({err.msg})") from None
    if not isinstance(row, dict):
        raise PredictionsError(f"{where}: a {type(row).__name__} where each line needs an object with an 'id' "
                               "and a string 'generation'")
    if not isinstance(row.get("id"), (str, int)) or isinstance(row.get("id"), bool):
        raise PredictionsError(f"{where}: each line needs an 'id' (a string or an integer)")
    if not isinstance(row.get("generation"), str):
        raise PredictionsError(f"{where}: each line needs a string 'generation'")
    row["id"] = str(row["id"])
    refs = row.get("references")
    if isinstance(refs, str):
        row["references"] = [refs]
    elif refs is not None and not (isinstance(refs, list) and refs and all(isinstance(r, str) for r in refs)):
        raise PredictionsError(f"{where}: 'references' must be a string or a non-empty list of strings")
    if row.get("references") is not None and not any(r.strip() for r in row["references"]):
        raise PredictionsError(f"{where}: 'references' are all blank; give the reference text, or leave the key out "
                               "to take the split's references")
    if known_ids is not None and row["id"] not in known_ids:
        raise PredictionsError(f"{where}: id {row['id']!r} is not in the split being scored (wrong task or split=?)")
    return row


def read_predictions(path: Path, known_ids: Optional[Collection[str]] = None) -> list[dict[str, Any]]:
    """The file's predictions; `known_ids` (the split's ids, when the task's samples are at hand) refuses
    ids the split does not have."""
    path = Path(path)
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, line in _text_lines(path):
        if not line.strip():
            continue
        row = _checked_row(path, number, line, known_ids)
        if row["id"] in seen:
            raise PredictionsError(f"{path}:{number}: duplicate id {row['id']!r} (first on line {seen[row['id']]})")
        seen[row["id"]] = number
        rows.append(row)
    if not rows:
        raise PredictionsError(f"{path}: no predictions (the file is empty)")
    return rows


@dataclass(frozen=True)
class Coverage:
    """How many of a split's ids a predictions file scores; `total` is None when the split is not at hand."""

    scored: int
    total: Optional[int]

    @property
    def partial(self) -> bool:
        return self.total is not None and self.scored < self.total

    def describe(self, path: Path, split: str) -> str:
        return f"{path} covers {self.scored} of the {self.total} ids of the {split} split"

    def as_dict(self) -> dict[str, Optional[int]]:
        return {"scored": self.scored, "total": self.total}
