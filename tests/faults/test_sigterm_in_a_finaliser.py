"""A SIGTERM that lands while Python runs a finaliser (`__del__`) still stops the run: Python cannot raise
from a finaliser (it prints "Exception ignored" and carries on), so grue.run.signals sends it again.
Without that, a sweep's stopped cell once trained on to the end and recorded itself complete."""
from __future__ import annotations

import os
import signal
import time

import pytest

from grue.run.signals import Terminated, sigterm_as_interrupt


class SignalledWhileFinalised:
    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs here, inside the finaliser, and its raise is swallowed
            pass


def test_a_terminate_swallowed_by_a_finaliser_is_raised_after_it():
    reached_the_end = False
    with pytest.raises(Terminated):
        with sigterm_as_interrupt():
            doomed = SignalledWhileFinalised()
            del doomed
            for _ in range(200):  # steps at which the re-sent signal can land
                time.sleep(0.001)
            reached_the_end = True
    assert not reached_the_end


def test_other_unraisable_errors_still_reach_the_previous_hook(monkeypatch):
    seen = []
    monkeypatch.setattr("sys.unraisablehook", lambda unraisable: seen.append(type(unraisable.exc_value)))

    class Broken:
        def __del__(self) -> None:
            raise ValueError("a finaliser's own bug")

    with sigterm_as_interrupt():
        broken = Broken()
        del broken
    assert seen == [ValueError]
