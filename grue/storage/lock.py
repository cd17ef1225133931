"""An exclusive lock per run directory, so two processes never write the same run at once.

`fcntl.flock` on `<run>/.lock`: the kernel drops the lock when its holder dies, `kill -9` included,
so a crashed run never leaves a stale lock behind and the next command simply resumes. Works on
local disks and on NFS (Linux emulates flock with NFS byte-range locks). The file records the
holder's pid and host, only to make the waiting message useful; it is never trusted as the lock.
"""
from __future__ import annotations

import fcntl
import os
import socket
from pathlib import Path
from typing import Callable, Optional

from grue.errors import GrueUserError


class RunBusy(GrueUserError, RuntimeError):
    """The run is locked by another process and the caller asked not to wait."""


class RunLock:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: Optional[int] = None

    def holder(self) -> str:
        try:
            text = self.path.read_text().strip()
        except OSError:
            return "another process"
        return f"pid {text.replace(' ', ' on ')}" if text else "another process"

    def acquire(self, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> None:
        """Take the lock; when it is held, either wait for it (telling `on_wait` who holds it) or raise."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = f"{self.path.parent} is being written by {self.holder()}"
            if not wait:
                os.close(fd)
                raise RunBusy(message) from None
            if on_wait:
                on_wait(message)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
        self._fd = fd

    @property
    def fd(self) -> Optional[int]:
        """The locked descriptor: a child process that inherits it keeps the lock alive after we die."""
        return self._fd

    def is_held(self) -> bool:
        """Whether some process holds the lock now (a probe: takes and drops it when it is free)."""
        if not self.path.exists():
            return False
        fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing drops a lock this probe took
        return False

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "RunLock":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
