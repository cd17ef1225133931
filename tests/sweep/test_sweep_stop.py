"""A local sweep stopped by SIGTERM stops its running cells too: each records itself as interrupted (not a
dead "running"), nothing keeps running unwatched, and the same command resumes the sweep."""
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fault_wait import wait_for
from sweep_helpers import base_args

from grue.run.run_dir import RunDir

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_to_a_sweep_interrupts_its_running_cells(tiny_imdb_args, tmp_path, jobs):
    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=ppo", "seed=0,1", "ppo.total_steps=24000", "eval.save_every=2",
            "--no-export", "--jobs", jobs]
    sweep = subprocess.Popen([sys.executable, "-m", "cli", "sweep", *args], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    wait_for(lambda: any(runs.glob("imdb-mini-ppo-*/checkpoints/step-000002")) or sweep.poll() is not None)
    sweep.send_signal(signal.SIGTERM)
    _, err = sweep.communicate(timeout=120)
    assert sweep.returncode == 143, err
    assert "[sweep] interrupted" in err and "Traceback" not in err
    started = [RunDir(p.parent) for p in runs.glob("imdb-mini-ppo-*/run.json")]
    assert started
    for run in started:
        assert not run.lock().is_held()  # no cell left running
        recorded = json.loads((run.path / "run.json").read_text())
        assert recorded["status"] == "interrupted", recorded  # written by the cell itself, not inferred
