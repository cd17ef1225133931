"""A checkpoint or results file cut short is never read as valid: the newest broken checkpoint falls back
to the previous one with a warning, and a broken results.json means "not complete", so the run is redone."""
import json

import pytest
import torch

from grue.train.checkpoint import load_latest, save_checkpoint
from grue.config import load_config
from grue.results.schema import validate_results
from grue.run.run_dir import RunDir
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


@pytest.mark.parametrize("damage", ["truncate", "empty", "no_marker", "garbage"])
def test_a_broken_newest_checkpoint_falls_back_to_the_previous_one_with_a_warning(tmp_path, capsys, damage):
    root = tmp_path / "checkpoints"
    save_checkpoint(root, 1, {"iteration": 1, "w": torch.ones(64)})
    newest = save_checkpoint(root, 2, {"iteration": 2, "w": torch.ones(64)})
    state_file = newest / "state.pt"
    if damage == "truncate":
        state_file.write_bytes(state_file.read_bytes()[: state_file.stat().st_size // 2])
    elif damage == "empty":
        state_file.write_bytes(b"")
    elif damage == "no_marker":  # killed between writing the state and marking it complete
        (newest / "COMPLETE").unlink()
    else:
        state_file.write_bytes(b"\x00\xff" * 100)
    assert load_latest(root)["iteration"] == 1
    err = capsys.readouterr().err
    assert "warning: checkpoint" in err and "step-000002 is unreadable" in err and "falling back" in err


def test_a_half_written_checkpoint_directory_is_ignored(tmp_path):
    root = tmp_path / "checkpoints"
    save_checkpoint(root, 1, {"iteration": 1})
    (root / ".tmp-step-000002").mkdir()  # killed mid-write: never renamed into place
    (root / ".tmp-step-000002" / "state.pt").write_bytes(b"half")
    assert load_latest(root)["iteration"] == 1


def test_a_run_resumes_through_a_broken_newest_checkpoint_to_the_same_metrics(tiny_imdb_args, tmp_path, monkeypatch,
                                                                              capsys):
    from grue.train.rl import trainer as trainer_module

    args = [*tiny_imdb_args, "algo=ppo", "ppo.total_steps=192", "eval.save_every=2"]
    straight = json.loads((run([*args, f"output_dir={tmp_path / 'a'}"]) / "results.json").read_text())
    real_step = trainer_module.RLTrainer.step

    def die_at_iteration_7(self):
        if self.iteration == 7:
            raise KeyboardInterrupt("simulated kill")
        return real_step(self)

    monkeypatch.setattr(trainer_module.RLTrainer, "step", die_at_iteration_7)
    with pytest.raises(KeyboardInterrupt):
        run([*args, f"output_dir={tmp_path / 'b'}"])
    monkeypatch.setattr(trainer_module.RLTrainer, "step", real_step)
    path = next((tmp_path / "b").glob("imdb-mini-ppo-*"))
    assert json.loads((path / "run.json").read_text())["status"] == "interrupted"
    newest = path / "checkpoints" / "step-000006" / "state.pt"
    newest.write_bytes(newest.read_bytes()[:1000])  # cut short, as by a full disk
    capsys.readouterr()
    resumed = json.loads((run([*args, f"output_dir={tmp_path / 'b'}"]) / "results.json").read_text())
    err = capsys.readouterr().err
    assert "step-000006 is unreadable" in err and "resumed at iteration 4/8" in err
    assert resumed["metrics"] == straight["metrics"]


@pytest.mark.parametrize("content", [b'{"schema_version": 1, "status": "compl', b"", b"\xff\xfe\x00garbage",
                                     b'{"status": "running"}'])
def test_a_broken_results_file_is_never_read_as_complete(tmp_path, content):
    path = tmp_path / "run"
    path.mkdir()
    (path / "results.json").write_bytes(content)
    assert RunDir(path).complete() is False


def test_a_run_with_a_cut_short_results_file_is_run_again_not_reused(tiny_imdb_args, capsys):
    args = [*tiny_imdb_args, "algo=zero_shot"]
    path = run(args)
    good = (path / "results.json").read_bytes()
    (path / "results.json").write_bytes(good[: len(good) // 2])
    capsys.readouterr()
    assert run(args) == path
    assert "is not a complete, valid results file" in capsys.readouterr().err
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == [] and doc["metrics"] == json.loads(good)["metrics"]
