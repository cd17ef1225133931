"""SIGTERM stops a run as Ctrl-C does, a killed run reads as interrupted (not "running"), and every file
a run writes is readable by whoever the user's umask lets read it."""
from __future__ import annotations

import json
import os
import signal
import stat

import pytest
from fault_helpers import grue, run_dir, start_grue, train_iterations, wait_for

from grue.assets.build_once import build_once
from grue.config import load_config
from grue.run.run_dir import RunDir
from grue.run.runner import Run
from grue.storage.atomic import atomic_write_text


def test_sigterm_mid_run_records_interrupted_and_the_same_command_resumes(tiny_imdb_args, tmp_path):
    args = [*tiny_imdb_args, "algo=ppo", "ppo.total_steps=240", "eval.save_every=2", "eval.eval_every=4",
            f"output_dir={tmp_path / 'runs'}"]
    proc = start_grue("run", *args)
    wait_for(lambda: any((tmp_path / "runs").glob("imdb-mini-ppo-*/checkpoints/step-000002"))
             or proc.poll() is not None)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "interrupted; run the same command again" in err and "Traceback" not in err
    path = run_dir(tmp_path / "runs", "imdb-mini-ppo-*")
    assert json.loads((path / "run.json").read_text())["status"] == "interrupted"

    again = grue("run", *args)
    assert again.returncode == 0, again.stderr
    assert train_iterations(path) == list(range(1, 11))


def test_a_run_whose_process_died_reads_as_interrupted_and_a_live_one_as_running(tmp_path):
    run = RunDir(tmp_path / "run")
    run.start("{}", "abc")
    assert run.status()["status"] == "interrupted" and "its process died" in run.status()["error"]
    lock = run.lock()
    lock.acquire()
    try:
        assert run.status()["status"] == "running"
    finally:
        lock.release()


@pytest.fixture
def umask():
    """Set the process umask for one test; the previous one comes back after it."""
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask, file_mode, dir_mode", [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750),
                                                       (0o077, 0o600, 0o700)])
def test_written_files_and_cached_assets_follow_the_umask(tmp_path, umask, mask, file_mode, dir_mode):
    umask(mask)
    atomic_write_text(tmp_path / "results.json", "{}")
    assert mode(tmp_path / "results.json") == file_mode
    built = build_once(tmp_path / "cache" / "model", lambda d: (d / "config.json").write_text("{}"))
    assert mode(built) == dir_mode


def test_every_file_of_a_run_is_readable_by_the_group_and_others_under_umask_022(tiny_imdb_args, umask):
    args = [*tiny_imdb_args, "algo=zero_shot"]
    path = Run(load_config(args), args).execute()
    files = [p for p in path.rglob("*") if p.is_file() and p.name != ".lock"]
    assert {p.name for p in files} >= {"results.json", "run.json", "config.yaml", "val.jsonl", "test.jsonl"}
    assert {str(p.relative_to(path)): mode(p) for p in files if mode(p) != 0o644} == {}
