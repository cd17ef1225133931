"""SIGTERM ends a run the way Ctrl-C does.

Schedulers (SLURM at its time limit, `scancel`), `kill`, and a sweep stopping its cells all send
SIGTERM; Python's default would die on the spot, leaving run.json at "running". Turned into
KeyboardInterrupt, it takes the same path as Ctrl-C: run.json says interrupted, the lock is released,
and the same command resumes from the last checkpoint.

A signal handler's exception is raised wherever the main thread happens to be, and when that is inside
a finaliser (`__del__`, a weakref callback: h5py-style groups, tensors, writers) Python prints "Exception
ignored" and carries on, so the run went on to finish as if no signal had come. A Terminated that
Python could not raise is therefore sent again a moment later, to land after the finaliser returns.

C++ code that calls back into Python (torch.save writing a checkpoint through a file object) catches the
Terminated raised in the callback and throws its own RuntimeError instead, with the Terminated only as its
`__context__`; `interrupt_behind` finds it there, so such a run is recorded as interrupted, not failed.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; handled wherever Ctrl-C is."""


def _interrupt(signum: int, frame: Any) -> None:
    raise Terminated(f"stopped by signal {signal.Signals(signum).name}")


def _redeliver_swallowed(previous_hook: Any):
    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, Terminated):
            # Sent from another thread a moment later: sent from here, the handler would run inside this
            # hook, whose exceptions are ignored too.
            resend = threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGTERM))
            resend.daemon = True
            resend.start()
            return
        previous_hook(unraisable)
    return hook


def interrupt_behind(err: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM that `err` was raised while handling, if any (followed through causes and
    contexts, suppressed ones included: `raise ... from None` hides the context from the traceback only)."""
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises Terminated (only the main thread may install handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _redeliver_swallowed(previous_hook)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.unraisablehook = previous_hook
