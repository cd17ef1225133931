"""`grue sweep` end to end: cells run as real processes, done cells are skipped, failed ones reported with
their error and retried on request, each cell has its log, and the sweep ends with its leaderboard."""
import json

from sweep_helpers import base_args, books, records, sweep


def test_a_sweep_runs_its_cells_reports_a_nan_failure_and_exports_its_board(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=zero_shot,ppo", "seed=0", "ppo.learning_rate=1e30"]
    first = sweep(*args)
    assert first.exit_code == 1, first.output
    assert "imdb zero_shot seed=0 (mini): complete" in first.output
    assert "imdb ppo seed=0 reward=sentiment (mini): failed - iteration 1: PPO loss is nan" in first.output
    assert "| Zero-Shot |" in first.output                          # the board of the sweep's runs
    root = books(runs)
    assert (root / "board" / "leaderboard.md").exists() and (root / "sweep.json").exists()
    rows = records(runs)
    assert [r["status"] for r in rows] == ["complete", "failed"]
    failed_log = rows[1]["log"]
    assert "PPO loss is nan" in open(failed_log).read()              # the cell's own log

    again = sweep(*args, "--dry-run")                               # nothing runs; what is done is listed
    assert again.exit_code == 0, again.output
    assert "complete (skipped)" in again.output and "failed (skipped; --retry-failed runs it again)" in again.output
    assert "error: iteration 1: PPO loss is nan" in again.output
    assert "2 cells: 1 complete, 0 to run, 1 failed" in again.output

    skipped = sweep(*args, "--no-export")
    assert skipped.exit_code == 1 and len(records(runs)) == 2         # the failed cell was not run again

    retried = sweep(*args, "--retry-failed", "--no-export")
    assert retried.exit_code == 1 and "failed; retried" in retried.output
    assert [r["status"] for r in records(runs)] == ["complete", "failed", "failed"]
    assert open(failed_log).read().count("=== ") == 2                # both attempts in the cell's log


def test_a_sweep_of_several_grids_lists_their_cells_and_finds_cells_another_sweep_ran(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    base = [*base_args(tiny_imdb_args, runs), "seed=0"]
    assert sweep(*base, "algo=zero_shot", "--no-export").exit_code == 0
    union = sweep(*base, "--grid", "algo=zero_shot", "--grid", "algo=ppo ppo.learning_rate=1e-5,2e-5", "--dry-run")
    assert union.exit_code == 0, union.output
    assert "imdb zero_shot seed=0 (mini)" in union.output and "complete (skipped)" in union.output
    assert "3 cells: 1 complete, 2 to run, 0 failed" in union.output
    refused = sweep(*base, "--grid", "seed=1", "--dry-run")
    assert refused.exit_code == 2 and "sets seed" in refused.output


def test_parallel_cells_split_the_cores_and_submitit_runs_cells_as_jobs(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=zero_shot"]
    parallel = sweep(*args, "seed=0,1", "--jobs", "2", "--no-export")
    assert parallel.exit_code == 0, parallel.output
    for seed in (0, 1):
        config = next(runs.glob(f"imdb-mini-zero_shot-seed{seed}-*/config.yaml")).read_text()
        assert "threads: 1" in config                               # 2 jobs x 1 thread on 2 cores

    slurm_like = sweep(*args, "seed=2", "--launcher", "submitit-local")
    assert slurm_like.exit_code == 0, slurm_like.output
    assert "seed=2 (mini): complete" in slurm_like.output
    assert next(runs.glob("imdb-mini-zero_shot-seed2-*/results.json")).exists()
    assert any((runs / "sweeps").rglob("submitit"))


def test_a_killed_sweep_resumes_its_interrupted_cell(tiny_imdb_args, tmp_path):
    import os
    import signal
    import subprocess
    import sys

    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=ppo", "seed=0", "ppo.total_steps=240", "eval.save_every=2"]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "cli", "sweep", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    from fault_wait import wait_for

    wait_for(lambda: any(runs.glob("imdb-mini-ppo-*/checkpoints/step-000004")) or proc.poll() is not None)
    os.killpg(proc.pid, signal.SIGKILL)                             # the sweep and its cell, as a lost node
    proc.wait()
    listed = sweep(*args, "--dry-run")
    assert "interrupted (resumes from its last checkpoint)" in listed.output, listed.output
    resumed = sweep(*args, "--no-export")
    assert resumed.exit_code == 0, resumed.output
    log = open(records(runs)[-1]["log"]).read()
    assert "resumed at iteration" in log
    path = next(runs.glob("imdb-mini-ppo-*"))
    iterations = [json.loads(l)["iteration"] for l in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert iterations == list(range(1, 11))


def test_a_sweep_preflights_every_cell_and_starts_nothing_when_something_is_missing(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=zero_shot,ppo", "model.policy=/nowhere/a,/nowhere/b"]
    result = sweep(*args)
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert "nothing was started" in out and "model /nowhere/a" in out and "model /nowhere/b" in out
    assert not (runs / "sweeps").exists() and not list(runs.glob("imdb-*"))
