"""Atomic file writes for exports: a reader (or a browser) never sees half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _mode() -> int:
    """Permissions a plain open() would give (mkstemp's 0600 would hide exports from a web server)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_bytes(path: Path, data: bytes) -> Path:
    """Write to a temp file beside `path`, then rename over it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, _mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text(path: Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))
