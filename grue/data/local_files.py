"""Records from a user's own data files: JSONL, CSV/TSV or parquet, chosen by the file's extension.

Every text file is read through grue.storage.inputs, the layer the learned-reward and human-study files
use, so a task's data gets the same answers as those: a file in UTF-16 or Latin-1 is named as such
("looks like UTF-16 ...: re-save as UTF-8") instead of a codec error or "lacks field"; a UTF-8 byte-order
mark, which Excel writes for "CSV UTF-8", is accepted and dropped (it carries no meaning in UTF-8, and
refusing it would only send the user back to the spreadsheet); every problem carries the physical line an
editor shows (a CSV cell may span lines) and all of a file's problems are counted in one message.

A record is a flat dict of the file's fields, with where it sits ("line 3", or "row 3" of a parquet
file, which has no lines). CSV values stay text (no guessing of numbers or missing values: an empty
cell is ""); JSONL and parquet keep their types. `record_fields` gives the field names (a JSONL file's
first record, a CSV header, a parquet schema), so a task file is checked against its data before any
run starts.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grue.storage.inputs import InputError, Problems, csv_records, jsonl_objects

FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet"}
WHAT = "data file"


class DataFileError(InputError):
    """A data file that cannot be read as its extension says; the message names the file and line."""


@dataclass(frozen=True)
class Located:
    """One record and where it sits in its file, for messages: a line number, or a parquet row number."""

    number: int
    values: dict[str, Any]
    unit: str = "line"

    @property
    def where(self) -> str:
        return f"{self.unit} {self.number}"


def file_format(path: Path) -> str:
    kind = FORMATS.get(Path(path).suffix.lower())
    if kind is None:
        raise DataFileError(f"{path}: unknown data format {Path(path).suffix!r}; use one of {', '.join(FORMATS)}")
    return kind


def _jsonl(path: Path) -> list[Located]:
    """Every object line; lines that are not JSON objects are counted and refused together."""
    problems = Problems(path)
    records = [Located(n, row) for n, row in jsonl_objects(path, WHAT, problems=problems)]
    problems.raise_if_any()
    return records


def _delimited(path: Path, delimiter: str, required: tuple[str, ...] = ()) -> list[Located]:
    """Every row as a dict of the header's fields; a row with fewer or more cells than the header is refused
    with the line it starts on (csv would fill the missing cells with None, or keep the extra ones unnamed)."""
    _, records = csv_records(path, WHAT, required, delimiter=delimiter)
    return [Located(r.line, r.values) for r in records]


def _parquet_table(path: Path, schema_only: bool = False) -> Any:
    import pyarrow
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path) if schema_only else pq.read_table(path)
    except (pyarrow.ArrowException, OSError) as err:  # a truncated or foreign file: pyarrow's own error
        raise DataFileError(f"{path}: not a readable parquet file ({str(err).splitlines()[0]})") from None


def _parquet(path: Path) -> list[Located]:
    return [Located(i, row, "row") for i, row in enumerate(_parquet_table(path).to_pylist(), start=1)]


def read_records(path: Path, required: tuple[str, ...] = ()) -> list[Located]:
    """Every record of a data file with where it sits; `required` names the columns a CSV header must have.
    An unreadable, mis-encoded or empty file is an InputError naming the file (and its lines)."""
    path = Path(path)
    kind = file_format(path)
    if kind == "jsonl":
        records = _jsonl(path)
    elif kind in ("csv", "tsv"):
        records = _delimited(path, "," if kind == "csv" else "\t", required)
    else:
        records = _parquet(path)
    if not records:
        raise DataFileError(f"{path}: the {WHAT} is empty (no records)")
    return records


def record_fields(path: Path) -> set[str]:
    """The field names of a data file, from its first record, header or schema (the whole text file is
    read, so a mis-encoded or malformed line anywhere is found now, before any run starts)."""
    path = Path(path)
    if file_format(path) == "parquet":
        schema = _parquet_table(path, schema_only=True)
        if not schema.names:
            raise DataFileError(f"{path}: the {WHAT} has no columns")
        return set(schema.names)
    return set(read_records(path)[0].values)
