"""Polling helper for tests that act on a running process."""
import time


def wait_for(predicate, timeout: float = 180, every: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached in time")
        time.sleep(every)
