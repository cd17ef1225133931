"""SIGTERM ends a run the way Ctrl-C does.

Schedulers (SLURM at its time limit, `scancel`), `kill`, and a sweep stopping its cells all send
SIGTERM; Python's default would die on the spot, leaving run.json at "running". Turned into
KeyboardInterrupt, it takes the same path as Ctrl-C: run.json says interrupted, the lock is released,
and the same command resumes from the last checkpoint.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; handled wherever Ctrl-C is."""


def _interrupt(signum: int, frame: Any) -> None:
    raise Terminated(f"stopped by signal {signal.Signals(signum).name}")


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises Terminated (only the main thread may install handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
