"""The comparisons file: one JSON object per line, each a query (a prompt and k candidates) and,
once answered, which candidate a labeler chose.

The file is only ever appended to: a labeler who changes their mind writes a new record for the
same query, and readers take each labeler's latest answer (`latest_answers`). A killed writer can
leave a torn last line; the reader skips it (and only it). The format is documented in
docs/learned_rewards.md; the human-judgment app and the CSV import write the same records.
"""
from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from grue.errors import GrueUserError

SCHEMA_VERSION = 1


class ComparisonsFormatError(GrueUserError, ValueError):
    """A comparisons or queries file line that does not follow docs/learned_rewards.md."""


@dataclass(frozen=True)
class Candidate:
    text: str
    source: str  # the model reference, run directory or checkpoint that generated it


@dataclass(frozen=True)
class Comparison:
    """A query and, when answered, the label. An unanswered query has `labeler` None."""

    query_id: str
    prompt: str
    candidates: tuple[Candidate, ...]
    task: Optional[str] = None
    sample_id: Optional[str] = None          # the task sample the prompt came from
    chosen: Optional[int] = None             # index of the preferred candidate
    ranking: Optional[tuple[int, ...]] = None  # best first, when the labeler ranked them all
    labeler: Optional[str] = None            # "mock:<reward>" or a person's id
    time_s: Optional[float] = None           # seconds the labeler took
    notes: str = ""
    created: str = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))

    @property
    def k(self) -> int:
        return len(self.candidates)

    @property
    def answered(self) -> bool:
        """A labeler picked a candidate (a record with neither `chosen` nor `ranking` is a skip)."""
        return self.chosen is not None

    def answer(self, chosen: Optional[int], labeler: str, ranking: Optional[Sequence[int]] = None,
               time_s: Optional[float] = None, notes: str = "") -> "Comparison":
        """A new record for this query with a labeler's answer (the query record itself is kept)."""
        if ranking is not None:
            chosen = ranking[0]
        return Comparison(self.query_id, self.prompt, self.candidates, self.task, self.sample_id, chosen,
                          tuple(ranking) if ranking is not None else None, labeler, time_s, notes)

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["candidates"] = [asdict(c) for c in self.candidates]
        row["ranking"] = list(self.ranking) if self.ranking is not None else None
        return {"schema_version": SCHEMA_VERSION, **row}


def _fail(where: str, why: str) -> ComparisonsFormatError:
    err = ComparisonsFormatError(f"{where}: {why} (format: docs/learned_rewards.md)")
    err.why = why  # the problem alone, for a file's list of problems by line
    return err


def _optional(row: dict, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = row.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise _fail(where, f"'{key}' has the wrong type ({type(value).__name__})")
    return value


def parse_comparison(row: Any, where: str = "record") -> Comparison:
    """One record from its JSON object, checked field by field."""
    if not isinstance(row, dict):
        raise _fail(where, "each line must be a JSON object")
    if row.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
        raise _fail(where, f"schema_version {row.get('schema_version')!r} is not {SCHEMA_VERSION}")
    for key in ("query_id", "prompt"):
        if not isinstance(row.get(key), str):
            raise _fail(where, f"'{key}' must be a string")
    raw = row.get("candidates")
    if not isinstance(raw, list) or len(raw) < 2:
        raise _fail(where, "'candidates' must be a list of at least 2 objects")
    candidates = []
    for c in raw:
        if not isinstance(c, dict) or not isinstance(c.get("text"), str) or not isinstance(c.get("source"), str):
            raise _fail(where, "each candidate needs a string 'text' and a string 'source'")
        candidates.append(Candidate(c["text"], c["source"]))
    chosen = _optional(row, "chosen", int, where)
    ranking = _optional(row, "ranking", list, where)
    k = len(candidates)
    if ranking is not None:
        if sorted(ranking) != list(range(k)):
            raise _fail(where, f"'ranking' must order all candidate indices 0..{k - 1}")
        if chosen is not None and chosen != ranking[0]:
            raise _fail(where, "'chosen' must be the first index of 'ranking'")
        chosen = ranking[0]
    if chosen is not None and not 0 <= chosen < k:
        raise _fail(where, f"'chosen' {chosen} is not a candidate index (0..{k - 1})")
    labeler = _optional(row, "labeler", str, where)
    if chosen is not None and labeler is None:
        raise _fail(where, "an answered record needs a 'labeler'")
    if labeler is not None and not labeler.strip():
        raise _fail(where, "'labeler' is empty: name the person or mock labeler who answered")
    time_s = _optional(row, "time_s", (int, float), where)
    if time_s is not None and not 0 <= time_s < float("inf"):
        raise _fail(where, f"'time_s' {time_s} is not a finite, non-negative number of seconds")
    return Comparison(row["query_id"], row["prompt"], tuple(candidates), _optional(row, "task", str, where),
                      _optional(row, "sample_id", str, where), chosen,
                      tuple(ranking) if ranking is not None else None, labeler,
                      float(time_s) if time_s is not None else None, _optional(row, "notes", str, where) or "",
                      _optional(row, "created", str, where) or "")


def read_comparisons(path: Path, required: bool = False) -> list[Comparison]:
    """Every record in file order; a missing file holds none unless it is `required` (an input). Every
    line that is not a valid record is reported at once, by line number; a torn last line (no trailing
    newline: a writer killed mid-append) is skipped."""
    from grue.storage.inputs import Problems, jsonl_objects

    path = Path(path)
    if not path.exists() and not required:
        return []
    problems = Problems(path)
    records = []
    for number, row in jsonl_objects(path, "comparisons file", torn_tail_ok=True, problems=problems):
        try:
            records.append(parse_comparison(row, f"{path}:{number}"))
        except ComparisonsFormatError as err:
            problems.add(number, err.why)
    if problems:
        raise ComparisonsFormatError(problems.message() + " (format: docs/learned_rewards.md)")
    return records


def append_comparisons(path: Path, records: Iterable[Comparison]) -> int:
    """Append records (one write and fsync per call, so a batch lands whole or is torn at its end)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)
    if not text:
        return 0
    if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        text = "\n" + text  # a torn last line stays torn, on its own line, instead of corrupting this one
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    return text.count("\n")


def latest_answers(records: Iterable[Comparison]) -> list[Comparison]:
    """Each labeler's latest answered record per query, ordered by when that latest record was written.
    A later skip (no `chosen`) withdraws that labeler's earlier answer."""
    latest: dict[tuple[str, str], Comparison] = {}
    for record in records:
        if record.labeler is not None:
            latest.pop((record.query_id, record.labeler), None)  # re-insert: keeps the newest last
            latest[(record.query_id, record.labeler)] = record
    return [r for r in latest.values() if r.answered]


def unanswered(queries: Iterable[Comparison], answers: Iterable[Comparison], labeler: str) -> list[Comparison]:
    """The queries this labeler has not answered yet (so labelling resumes where it stopped)."""
    done = {a.query_id for a in answers if a.labeler == labeler}
    return [q for q in queries if q.query_id not in done]
