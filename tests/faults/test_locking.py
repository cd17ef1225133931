"""Two processes writing into the same runs directory lose nothing: each run has a lock (flock on
`<run>/.lock`); a second process on a locked run waits for it, then reuses what the first one wrote."""
import json
import os
import threading
import time

from fault_helpers import run_dir, start_grue, train_iterations, wait_for

from grue.config import config_hash, load_config
from grue.storage.lock import RunBusy, RunLock
from grue.results.schema import validate_results
from grue.run.run_dir import RunDir


def _complete(path):
    return validate_results(json.loads((path / "results.json").read_text())) == []


def test_two_processes_on_the_same_run_and_a_third_on_another_lose_nothing(tiny_imdb_args, tmp_path):
    runs = tmp_path / "shared_runs"
    args = [*tiny_imdb_args, "algo=ppo", f"output_dir={runs}"]
    procs = [start_grue("run", *args), start_grue("run", *args), start_grue("run", *args, "seed=1")]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [err[-2000:] for _, err in outputs]
    for seed in (0, 1):
        path = run_dir(runs, f"imdb-mini-ppo-seed{seed}-*")
        assert _complete(path)
        assert train_iterations(path) == [1, 2, 3, 4, 5]  # trained once: no line written twice
    first, second = outputs[0][1], outputs[1][1]
    assert "already complete" in first + second  # one trained it, the other reused it


def test_a_process_on_a_locked_run_waits_and_says_who_holds_it(tiny_imdb_args, tmp_path):
    args = [*tiny_imdb_args, "algo=zero_shot", f"output_dir={tmp_path / 'runs'}"]
    cfg = load_config(args)
    held = RunDir.for_config(cfg, config_hash(cfg)).lock()
    held.acquire()
    proc = start_grue("run", *args)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    wait_for(lambda: proc.poll() is not None or "waiting for it to finish" in "".join(lines), timeout=120)
    time.sleep(1.0)
    assert proc.poll() is None, "the second writer did not wait"
    assert f"is being written by pid {os.getpid()}" in "".join(lines)
    assert not (held.path.parent / "run.json").exists()  # it wrote nothing while the lock was held
    held.release()
    assert proc.wait(timeout=240) == 0, "".join(lines)
    reader.join(timeout=10)
    assert _complete(held.path.parent)


def test_a_lock_can_refuse_instead_of_waiting_and_dies_with_its_holder(tmp_path):
    first, second = RunLock(tmp_path / "run" / ".lock"), RunLock(tmp_path / "run" / ".lock")
    first.acquire()
    try:
        second.acquire(wait=False)
        raise AssertionError("acquired a held lock")
    except RunBusy as err:
        assert "is being written by pid" in str(err)
    first.release()
    second.acquire(wait=False)  # free again
    second.release()
