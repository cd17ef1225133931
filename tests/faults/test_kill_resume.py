"""`kill -9` in the middle of a real `grue run` process, then the same command again: it resumes from the
last checkpoint and ends with exactly the metrics of a run that was never interrupted."""
import signal

from fault_helpers import grue, metrics, run_dir, start_grue, train_iterations, wait_for

from grue.config import load_config
from grue.run.runner import Run


def _args(tiny_imdb_args, runs):
    # 10 PPO iterations, a checkpoint every 2 and a validation pass every 4: a kill lands mid-run.
    return [*tiny_imdb_args, "algo=ppo", "ppo.total_steps=240", "eval.save_every=2", "eval.eval_every=4",
            f"output_dir={runs}"]


def test_kill_9_mid_run_then_the_same_command_finishes_with_the_uninterrupted_metrics(tiny_imdb_args, tmp_path):
    straight_args = _args(tiny_imdb_args, tmp_path / "straight")
    straight = Run(load_config(straight_args), straight_args).execute()

    args = _args(tiny_imdb_args, tmp_path / "killed")
    proc = start_grue("run", *args)
    checkpoints = tmp_path / "killed"
    wait_for(lambda: any(checkpoints.glob("imdb-mini-ppo-*/checkpoints/step-000004")) or proc.poll() is not None)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    killed = run_dir(tmp_path / "killed", "imdb-mini-ppo-*")
    assert not (killed / "results.json").exists()

    again = grue("run", *args)
    assert again.returncode == 0, again.stderr
    assert "resumed at iteration" in again.stderr
    assert metrics(killed) == metrics(straight)           # exactly, not approximately
    assert train_iterations(killed) == list(range(1, 11))  # nothing lost, nothing repeated
