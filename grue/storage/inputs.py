"""Reading a user's input files (JSONL and CSV) with errors a user can act on.

Every command that reads a file somebody made by hand or with a spreadsheet reads it here, so the
same mistakes get the same messages everywhere:
- a file that is missing, a directory, or empty is named as such (not "holds no queries");
- a file that is not UTF-8 says so and guesses what it is ("looks like UTF-16: re-save as UTF-8",
  what spreadsheets write by default), instead of a UnicodeDecodeError;
- every problem carries the *physical* line number an editor shows (a CSV text with newlines spans
  several lines), and all problems are collected and reported together, with their count, so a user
  fixes a file in one pass instead of one error per run.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from grue.errors import GrueUserError

MAX_SHOWN = 10  # problems spelled out in one message; the count says how many there are in all


class InputError(GrueUserError, ValueError):
    """An input file that cannot be used as it is; the message names the file and every problem."""


@dataclass
class Problems:
    """Problems found in one file, each with its physical line number, raised together."""

    path: Path
    found: list[tuple[int, str]] = field(default_factory=list)
    unit: str = "line"  # "row" for a parquet file, which has records but no lines an editor shows

    def add(self, line: int, message: str) -> None:
        self.found.append((line, message))

    def __bool__(self) -> bool:
        return bool(self.found)

    def message(self, what: str = "") -> str:
        shown = "; ".join(f"{self.unit} {line}: {text}" for line, text in self.found[:MAX_SHOWN])
        count = len(self.found)
        more = f" (first {MAX_SHOWN} shown)" if count > MAX_SHOWN else ""
        noun = "problem" if count == 1 else "problems"
        return f"{self.path}: {count} {noun}{more}{f' ({what})' if what else ''}: {shown}"

    def raise_if_any(self, what: str = "") -> None:
        """`what` says what was (not) done, e.g. "nothing imported"."""
        if self.found:
            raise InputError(self.message(what))


def encoding_guess(data: bytes) -> str:
    """A short guess at what a non-UTF-8 file is, for the error message."""
    every_other_nul = len(data) >= 4 and b"\x00\x00" in (data[1:4:2], data[0:4:2])  # ASCII text as UTF-16
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or every_other_nul:
        return "looks like UTF-16, which spreadsheets save as 'Unicode text': re-save as UTF-8"
    if b"\x00" in data[:4096]:
        return "looks like a binary file, not text"
    try:
        data.decode("cp1252")
        return "looks like Windows-1252/Latin-1: re-save as UTF-8"
    except UnicodeDecodeError:
        return "re-save as UTF-8"


def read_text(path: Path | str, what: str = "file") -> str:
    """The text of a UTF-8 file (a leading byte-order mark dropped), or an InputError naming the problem."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such {what}")
    if path.is_dir():
        raise InputError(f"{path} is a directory; give the {what} itself")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"{path}: cannot read the {what} ({err.strerror or err})") from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:4096]:
        raise InputError(f"{path}: not UTF-8 ({encoding_guess(data)})")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise InputError(f"{path}: not UTF-8 at line {line} ({encoding_guess(data)})") from None


def jsonl_objects(path: Path | str, what: str = "JSONL file", torn_tail_ok: bool = False,
                  problems: Optional[Problems] = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line. Lines that are not JSON objects are added to
    `problems` (raised at the end when none is passed in). `torn_tail_ok`: a last line without its
    newline that is not JSON is a writer killed mid-append, skipped silently."""
    path = Path(path)
    text = read_text(path, what)
    own = problems is None
    problems = Problems(path) if own else problems
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            if torn_tail_ok and number == len(lines) and not text.endswith("\n"):
                break
            problems.add(number, f"not JSON ({err.msg})")
            continue
        if not isinstance(row, dict):
            problems.add(number, f"a JSON {type(row).__name__}, not an object")
            continue
        yield number, row
    if own:
        problems.raise_if_any()


@dataclass(frozen=True)
class Field:
    """A required field of a JSONL row and the type(s) its value must have."""

    name: str
    kinds: tuple[type, ...] = (str,)

    def problem(self, row: dict[str, Any]) -> Optional[str]:
        if self.name not in row:
            return f"no '{self.name}'"
        value = row[self.name]
        if not isinstance(value, self.kinds) or isinstance(value, bool) and bool not in self.kinds:
            names = " or ".join(k.__name__ for k in self.kinds)
            return f"'{self.name}' is {type(value).__name__}, not {names}"
        return None


def read_records(path: Path | str, fields: tuple[Field, ...], what: str = "JSONL file",
                 check: Optional[Callable[[dict[str, Any]], Optional[str]]] = None) -> list[tuple[int, dict]]:
    """Every row of a JSONL file that has `fields` (and passes `check`, which returns a problem or
    None); any row that does not makes the whole file an InputError listing every such line."""
    path = Path(path)
    problems = Problems(path)
    rows = []
    for number, row in jsonl_objects(path, what, problems=problems):
        bad = [p for p in (f.problem(row) for f in fields) if p] or ([p] if check and (p := check(row)) else [])
        if bad:
            problems.add(number, ", ".join(bad))
        else:
            rows.append((number, row))
    problems.raise_if_any()
    if not rows:
        raise InputError(f"{path}: the {what} is empty (no records)")
    return rows


def seconds_field(raw: str | None, name: str) -> Optional[float]:
    """A time in seconds from a CSV cell (None when blank); ValueError names `name` and why it is not one."""
    if raw is None or not raw.strip():
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} {raw!r} is not a number of seconds") from None
    if not 0 <= value < math.inf:
        raise ValueError(f"{name} {raw!r} is not a finite, non-negative number of seconds")
    return value


@dataclass(frozen=True)
class CsvRecord:
    """One CSV record: the physical line it starts on and its fields by column name."""

    line: int
    values: dict[str, str]


def csv_records(path: Path | str, what: str = "CSV file", required: tuple[str, ...] = (),
                consequence: str = "", delimiter: str = ",") -> tuple[list[str], list[CsvRecord]]:
    """(header, records) of a UTF-8 CSV (or, with `delimiter="\t"`, TSV) file. Refused: an empty file, a
    header without records, a missing required column, and any record with more or fewer fields than the
    header (all listed, with `consequence`, e.g. "nothing imported")."""
    path = Path(path)
    text = read_text(path, what)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if not header or not any(h.strip() for h in header):
            raise InputError(f"{path}: the {what} is empty (no header line)")
        header = [h.strip() for h in header]
        missing = [c for c in required if c not in header]
        if missing:
            raise InputError(f"{path}: no {', '.join(missing)} column (the header has {', '.join(header)})")
        problems, records = Problems(path), []
        start = reader.line_num + 1
        for fields in reader:
            if fields and any(f.strip() for f in fields):
                if len(fields) != len(header):
                    problems.add(start, f"{len(fields)} fields where the header has {len(header)}")
                else:
                    records.append(CsvRecord(start, dict(zip(header, fields))))
            start = reader.line_num + 1
    except csv.Error as err:
        raise InputError(f"{path}: not a readable CSV file at line {reader.line_num} ({err})") from None
    problems.raise_if_any(consequence)
    if not records:
        raise InputError(f"{path}: the {what} has a header but no records")
    return header, records
