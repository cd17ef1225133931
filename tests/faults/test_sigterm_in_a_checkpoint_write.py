"""A SIGTERM that lands while torch.save writes a checkpoint stops the run as interrupted, not failed.

torch's zip writer calls the file's Python `write`; the Terminated raised there is caught by its C++ code,
which throws a RuntimeError of its own ("unexpected pos ...") with the Terminated only as its context. The
board study's sweep once recorded such a stopped cell as failed, so a plain re-run skipped it."""
from __future__ import annotations

import json
import os
import signal

import pytest
import torch

from grue.config import load_config
from grue.run.runner import Run
from grue.run.signals import Terminated, interrupt_behind, sigterm_as_interrupt


class SignalledFile:
    """A file whose third write receives SIGTERM, as a scheduler's stop would mid-checkpoint."""

    def __init__(self, handle) -> None:
        self.handle, self.writes = handle, 0

    def write(self, data) -> int:
        self.writes += 1
        if self.writes == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()


def test_torch_wraps_the_terminate_and_interrupt_behind_finds_it(tmp_path):
    with pytest.raises(RuntimeError) as caught:
        with sigterm_as_interrupt(), open(tmp_path / "state.pt", "wb") as handle:
            torch.save({"x": torch.zeros(200_000)}, SignalledFile(handle))
    assert isinstance(interrupt_behind(caught.value), Terminated)
    assert interrupt_behind(RuntimeError("a real bug")) is None


def test_interrupt_behind_follows_a_context_hidden_by_raise_from_none():
    try:
        try:
            try:
                raise Terminated("stopped by signal SIGTERM")
            except Terminated:
                raise RuntimeError("unexpected pos 46 vs 0")
        except RuntimeError:
            raise OSError("could not write checkpoint") from None
    except OSError as err:
        assert isinstance(interrupt_behind(err), Terminated)


def test_a_run_stopped_inside_its_checkpoint_write_reads_interrupted(tiny_imdb_args, monkeypatch):
    real_save = torch.save
    monkeypatch.setattr(torch, "save", lambda obj, f, *a, **k: real_save(obj, SignalledFile(f), *a, **k))
    args = [*tiny_imdb_args, "algo=ppo"]
    run = Run(load_config(args), args)
    with pytest.raises(KeyboardInterrupt):
        run.execute()
    status = json.loads((run.dir.path / "run.json").read_text())
    assert status["status"] == "interrupted", status
