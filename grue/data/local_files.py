"""Records from a user's own data files: JSONL, CSV or parquet, chosen by the file's extension.

A record is a flat dict of the file's fields. CSV values stay text (no guessing of numbers or missing
values: an empty cell is ""), JSONL and parquet keep their types. `record_fields` reads only what it
takes to know the field names (a JSONL file's first record, a CSV header, a parquet schema), so a task
file is checked against its data before any run starts without reading the data itself.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from grue.errors import GrueUserError

FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}


class DataFileError(GrueUserError, ValueError):
    """A data file that cannot be read as its extension says; the message names the file and line."""


def file_format(path: Path) -> str:
    kind = FORMATS.get(Path(path).suffix.lower())
    if kind is None:
        raise DataFileError(f"{path}: unknown data format {Path(path).suffix!r}; use one of {', '.join(FORMATS)}")
    return kind


def _jsonl(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise DataFileError(f"{path}:{number}: not JSON ({err.msg})") from None
            if not isinstance(record, dict):
                raise DataFileError(f"{path}:{number}: a {type(record).__name__}, where each line needs an object")
            records.append(record)
            if limit is not None and len(records) >= limit:
                break
    return records


def _delimited(path: Path, delimiter: str) -> list[dict[str, Any]]:
    """Every row as a dict of the header's fields; a row with fewer or more cells than the header is refused
    with its line (csv would fill the missing cells with None, or keep the extra ones under no name)."""
    rows = []
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        for row in reader:
            if None in row or any(value is None for value in row.values()):
                named = len(reader.fieldnames or [])
                cells = named + len(row[None]) if None in row else sum(v is not None for v in row.values())
                raise DataFileError(f"{path}:{reader.line_num}: {cells} cells where the header names {named}")
            rows.append(dict(row))
    return rows


def _parquet(path: Path) -> list[dict[str, Any]]:
    import pyarrow
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except (pyarrow.ArrowException, OSError) as err:  # a truncated or foreign file: pyarrow's own error
        raise DataFileError(f"{path}: not a readable parquet file ({str(err).splitlines()[0]})") from None


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every record of a data file."""
    path = Path(path)
    kind = file_format(path)
    try:
        if kind == "jsonl":
            return _jsonl(path)
        if kind in ("csv", "tsv"):
            return _delimited(path, "," if kind == "csv" else "\t")
        return _parquet(path)
    except UnicodeDecodeError:
        raise DataFileError(f"{path}: not UTF-8 text; save the file as UTF-8") from None


def record_fields(path: Path) -> set[str]:
    """The field names of a data file, from its first record, header or schema."""
    path = Path(path)
    kind = file_format(path)
    if kind == "jsonl":
        first = _jsonl(path, limit=1)
        return set(first[0]) if first else set()
    if kind in ("csv", "tsv"):
        with open(path, encoding="utf-8", newline="") as handle:
            return set(next(csv.reader(handle, delimiter="," if kind == "csv" else "\t"), []))
    import pyarrow
    import pyarrow.parquet as pq

    try:
        return set(pq.read_schema(path).names)
    except (pyarrow.ArrowException, OSError) as err:
        raise DataFileError(f"{path}: not a readable parquet file ({str(err).splitlines()[0]})") from None
