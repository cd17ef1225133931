"""Where a sweep keeps its books, and what each cell's state is.

    <runs>/sweeps/<sweep-hash>/sweep.json     the arguments and the cells (hash -> grue run arguments)
    <runs>/sweeps/<sweep-hash>/cells.jsonl    one line per finished attempt: status, exit code, error, log
    <runs>/sweeps/<sweep-hash>/logs/<cell>.log  everything each attempt printed

The sweep hash comes from the set of cell hashes, so the same grid typed again (in any order) finds
its books and carries on. The truth about a run stays in its own directory: `results.json` makes a
cell complete whatever the books say; the books add why a cell failed and where its log is.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from grue.storage.atomic import atomic_write_json
from grue.storage.run_layout import read_jsonl
from grue.run.run_dir import RunDir
from grue.sweep.grid import Cell

COMPLETE, FAILED, INTERRUPTED, RUNNING, PENDING = "complete", "failed", "interrupted", "running", "pending"


@dataclass
class CellState:
    status: str
    error: Optional[str] = None
    log: Optional[str] = None


def sweep_hash(cells: Sequence[Cell]) -> str:
    return hashlib.sha256("\n".join(sorted(c.hash for c in cells)).encode()).hexdigest()[:12]


class SweepBooks:
    def __init__(self, runs: Path, cells: Sequence[Cell]) -> None:
        self.runs, self.cells = Path(runs), list(cells)
        self.hash = sweep_hash(self.cells)
        self.root = self.runs / "sweeps" / self.hash

    cells_log = property(lambda self: self.root / "cells.jsonl")

    def log_path(self, cell: Cell) -> Path:
        return self.root / "logs" / f"{cell.key}.log"

    def run_dir(self, cell: Cell) -> RunDir:
        return RunDir.for_config(cell.cfg, cell.hash)

    def write_manifest(self, args: Sequence[str]) -> None:
        atomic_write_json(self.root / "sweep.json", {
            "args": list(args), "created": time.time(),
            "cells": [{"hash": c.hash, "args": list(c.args), "label": c.label, "run_dir": str(self.run_dir(c).path)}
                      for c in self.cells]})

    def record(self, cell: Cell, status: str, returncode: Optional[int], error: Optional[str]) -> None:
        """Append one attempt's outcome; the books' lock keeps lines of parallel cells whole."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"hash": cell.hash, "label": cell.label, "status": status, "returncode": returncode,
                           "error": error, "log": str(self.log_path(cell)), "time": time.time()}) + "\n"
        with open(self.root / ".books.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            with open(self.cells_log, "a", encoding="utf-8") as handle:
                handle.write(line)

    def last_records(self) -> dict[str, dict]:
        return {row["hash"]: row for row in read_jsonl(self.cells_log) if "hash" in row}

    def state(self, cell: Cell, records: Optional[dict[str, dict]] = None) -> CellState:
        """complete > running (locked now) > failed (books or run.json) > interrupted (started, resumable) > pending."""
        records = self.last_records() if records is None else records
        run = self.run_dir(cell)
        log = str(self.log_path(cell)) if self.log_path(cell).exists() else None
        if run.complete():
            return CellState(COMPLETE, log=log)
        if run.lock().is_held():
            return CellState(RUNNING, log=log)
        record = records.get(cell.hash)
        status = run.status()
        if record and record["status"] == FAILED:
            return CellState(FAILED, record.get("error"), log)
        if status.get("status") == FAILED:
            return CellState(FAILED, status.get("error"), log)
        if status:
            return CellState(INTERRUPTED, status.get("error"), log)
        return CellState(PENDING, log=log)
