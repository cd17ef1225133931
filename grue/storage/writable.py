"""Is a place writable? Asked before the work that would write there, so a mistyped or read-only
`output_dir=` or `out=` costs one line, not a run's worth of time before the write fails."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from grue.errors import GrueUserError


class NotWritable(GrueUserError, OSError):
    """A path grue must write to cannot be written; the message names the path and the setting."""


def _why_not_a_writable_dir(path: Path) -> Optional[str]:
    """Why grue could not create `path` (if needed) and write into it; None when it could."""
    existing = path.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a directory"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable (read-only, or not yours)"
    return None


def check_writable_dir(path: Path, setting: str) -> None:
    """`path` is a directory grue may create and write into, or NotWritable names `setting` (e.g. output_dir)."""
    why = _why_not_a_writable_dir(Path(path))
    if why:
        raise NotWritable(f"{setting}={path}: {why}; choose another {setting}")


def check_writable_file(path: Path, setting: str) -> None:
    """`path` is a file grue may write (a folder it can write in, not a directory itself), or NotWritable."""
    path = Path(path)
    why = f"{path} is a directory" if path.is_dir() else _why_not_a_writable_dir(path.parent)
    if why:
        raise NotWritable(f"{setting}={path}: {why}; choose another {setting}")
