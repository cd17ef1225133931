"""Atomic file writes: a reader never sees a half-written file (temp file in the same dir + rename).

The temp file gets the permissions a plain open() would give under the user's umask: mkstemp's 0600
would hide results, configs and predictions from colleagues on a shared filesystem, whose boards
would then skip those runs without a word.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable


def current_umask() -> int:
    """The process's umask: from /proc on Linux (a read, safe with threads), else set-and-restore."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def umask_mode(directory: bool = False) -> int:
    """What open() (0666) or mkdir() (0777) would give a new file or directory under the user's umask."""
    return (0o777 if directory else 0o666) & ~current_umask()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, umask_mode())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


def atomic_write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    atomic_write_text(path, "".join(json.dumps(row, default=str) + "\n" for row in rows))


def append_jsonl(path: Path, row: dict) -> None:
    """Logs grow line by line; a torn last line is skipped by readers (run_layout.read_jsonl)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, default=str) + "\n")
