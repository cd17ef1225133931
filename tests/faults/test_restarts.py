"""A run started again after it stopped has logs that match the state it resumes from: no line twice,
whatever stopped it (Ctrl-C before the first checkpoint, a full disk, a finished run's results.json
cut short), and a finished run whose results.json is cut short is scored again, not retrained."""
from __future__ import annotations

import errno
import json

import pytest

from grue.config import load_config
from grue.train import checkpoint as checkpoint_module
from grue.train.checkpoint import CheckpointWriteError
from grue.run.runner import Run
from grue.storage.run_layout import read_jsonl


def run(args):
    return Run(load_config(args), args).execute()


def log_keys(path, name: str, key: str) -> list:
    return [(row.get(key), row.get("split"), row.get("final", False)) for row in read_jsonl(path / "logs" / name)]


def rl_args(tiny_imdb_args, out):
    # 5 iterations, a checkpoint only at the end, a validation pass every 2: a stop before the end leaves none.
    return [*tiny_imdb_args, "algo=ppo", "eval.save_every=100", "eval.eval_every=2", f"output_dir={out}"]


@pytest.fixture
def straight(tiny_imdb_args, tmp_path):
    """An uninterrupted RL run: its logs and metrics are what every restarted run must end with."""
    path = run(rl_args(tiny_imdb_args, tmp_path / "straight"))
    return {"train": log_keys(path, "train.jsonl", "iteration"), "eval": log_keys(path, "eval.jsonl", "iteration"),
            "metrics": json.loads((path / "results.json").read_text())["metrics"]}


def _stop_at_iteration(monkeypatch, iteration: int, error: BaseException) -> None:
    from grue.train.rl import trainer as trainer_module

    real_step = trainer_module.RLTrainer.step

    def step(self):
        if self.iteration == iteration:
            raise error
        return real_step(self)

    monkeypatch.setattr(trainer_module.RLTrainer, "step", step)


def _finished(path, straight) -> None:
    assert log_keys(path, "train.jsonl", "iteration") == straight["train"]
    assert log_keys(path, "eval.jsonl", "iteration") == straight["eval"]
    assert json.loads((path / "results.json").read_text())["metrics"] == straight["metrics"]


def test_ctrl_c_before_the_first_checkpoint_restarts_with_fresh_logs(tiny_imdb_args, tmp_path, monkeypatch, straight):
    args = rl_args(tiny_imdb_args, tmp_path / "b")
    with monkeypatch.context() as patch:
        _stop_at_iteration(patch, 3, KeyboardInterrupt())
        with pytest.raises(KeyboardInterrupt):
            run(args)
    path = next((tmp_path / "b").glob("imdb-mini-ppo-*"))
    assert len(read_jsonl(path / "logs" / "train.jsonl")) == 3 and not (path / "checkpoints").exists()
    _finished(run(args), straight)


def test_a_full_disk_at_the_checkpoint_leaves_no_partial_checkpoint_and_restarts_cleanly(
        tiny_imdb_args, tmp_path, monkeypatch, straight):
    args = rl_args(tiny_imdb_args, tmp_path / "b")

    def disk_full(obj, handle, *a, **k):
        handle.write(b"half a checkpoint")
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(checkpoint_module.torch, "save", disk_full)
        with pytest.raises(CheckpointWriteError, match="could not write checkpoint .*step-000005.*free space"):
            run(args)
    path = next((tmp_path / "b").glob("imdb-mini-ppo-*"))
    assert list((path / "checkpoints").iterdir()) == []  # the half-written one is gone
    assert json.loads((path / "run.json").read_text())["status"] == "failed"
    _finished(run(args), straight)


def test_a_cut_short_results_file_is_rescored_from_the_saved_predictions(tiny_imdb_args, tmp_path, monkeypatch,
                                                                         capsys, straight):
    from grue.train.rl import trainer as trainer_module

    path = run(rl_args(tiny_imdb_args, tmp_path / "b"))
    good = (path / "results.json").read_bytes()
    (path / "results.json").write_bytes(good[: len(good) // 3])
    capsys.readouterr()
    monkeypatch.setattr(trainer_module.RLTrainer, "step", lambda self: pytest.fail("retrained"))
    assert run(rl_args(tiny_imdb_args, tmp_path / "b")) == path
    err = capsys.readouterr().err
    assert "rewritten: the run's saved model and predictions were intact" in err and "resumed" not in err
    _finished(path, straight)
    assert json.loads((path / "run.json").read_text())["status"] == "complete"


def test_a_cut_short_results_file_without_predictions_runs_again_with_fresh_logs(tiny_imdb_args, tmp_path, capsys,
                                                                                 straight):
    path = run(rl_args(tiny_imdb_args, tmp_path / "b"))
    (path / "results.json").write_text('{"schema_version": 1, "sta')
    (path / "predictions" / "test.jsonl").unlink()
    capsys.readouterr()
    run(rl_args(tiny_imdb_args, tmp_path / "b"))
    assert "model or saved predictions are missing or do not match" in capsys.readouterr().err
    _finished(path, straight)


def test_a_zero_shot_run_rescored_or_rerun_logs_its_final_evaluation_once(tiny_imdb_args, tmp_path):
    args = [*tiny_imdb_args, "algo=zero_shot"]
    path = run(args)
    once = log_keys(path, "eval.jsonl", "iteration")
    assert [split for _, split, final in once if final] == ["val", "test"]
    for damage in ("results", "predictions"):
        (path / "results.json").write_text("{")
        if damage == "predictions":
            (path / "predictions" / "val.jsonl").write_text("")
        run(args)
        assert log_keys(path, "eval.jsonl", "iteration") == once


def test_supervised_training_stopped_after_logging_an_epoch_logs_it_once(tiny_imdb_args, tmp_path, monkeypatch):
    args = [*tiny_imdb_args, "algo=supervised", "supervised.epochs=2"]
    real_save = checkpoint_module.save_checkpoint
    from grue.run import runner as runner_module

    def killed_while_saving_epoch_1(root, step, state):
        if step == 1:
            raise KeyboardInterrupt()  # after epoch 1 was logged, before its checkpoint existed
        return real_save(root, step, state)

    with monkeypatch.context() as patch:
        patch.setattr(runner_module, "save_checkpoint", killed_while_saving_epoch_1)
        with pytest.raises(KeyboardInterrupt):
            run(args)
    path = run(args)
    assert [row["epoch"] for row in read_jsonl(path / "logs" / "train.jsonl")] == [1, 2]


def test_a_full_disk_is_one_line_from_the_command(tiny_imdb_args, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from cli import app

    def disk_full(obj, handle, *a, **k):
        raise RuntimeError("[enforce fail at inline_container.cc] . PytorchStreamWriter failed writing file data/3: "
                           "file write failed")

    monkeypatch.setattr(checkpoint_module.torch, "save", disk_full)
    result = CliRunner().invoke(app, ["run", *rl_args(tiny_imdb_args, tmp_path / "b")])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:") or "Traceback" in line]
    assert len(lines) == 1 and lines[0].startswith("error: could not write checkpoint "), result.output
    assert "free space on that disk or choose another output_dir=" in lines[0]
