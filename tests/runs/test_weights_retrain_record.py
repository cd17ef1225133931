"""A complete run trained again only for its weights (a warm start needs its model/) keeps its record
(grue/run/record_kept.py): byte for byte when the retrain gives the recorded metrics; the old results kept
beside the new ones, with a warning, when it does not; as it was when the retrain fails."""
import json
import shutil

import pytest

from grue.config import load_config
from grue.run.record_kept import RESULTS_BEFORE, record_files
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


@pytest.fixture
def supervised_without_weights(tiny_imdb_args):
    """A finished Supervised+PPO run whose supervised warm start has its record but no longer its model/."""
    first = run([*tiny_imdb_args, "algo=supervised_ppo"])
    sup = next(first.parent.glob("imdb-mini-supervised-seed0-*"))
    shutil.rmtree(sup / "model")
    return sup


def said(capsys):
    out = capsys.readouterr()
    return " ".join((out.out + out.err).split())


def test_the_weights_are_made_again_and_the_record_is_kept_byte_for_byte(tiny_imdb_args, supervised_without_weights,
                                                                          capsys):
    sup = supervised_without_weights
    record = record_files(sup)
    assert {"results.json", "run.json", "logs/train.jsonl", "predictions/val.jsonl"} <= set(record)
    capsys.readouterr()
    second = run([*tiny_imdb_args, "algo=supervised_nlpo"])
    words = said(capsys)
    assert "its weights are not here" in words and "its record (results, logs, predictions) is kept" in words
    assert (sup / "model").is_dir() and json.loads((second / "results.json").read_text())["status"] == "complete"
    assert record_files(sup) == record  # not a new date, commit or wall time: the run did not change
    assert not (sup / RESULTS_BEFORE).exists()


def test_a_retrain_with_other_metrics_keeps_the_new_record_and_the_old_results_beside_it(
        tiny_imdb_args, supervised_without_weights, capsys):
    sup = supervised_without_weights
    recorded = json.loads((sup / "results.json").read_text())
    recorded["metrics"]["test"]["sentiment"] += 0.25  # as if made on a machine whose kernels round otherwise
    (sup / "results.json").write_text(json.dumps(recorded))
    old_bytes = (sup / "results.json").read_bytes()
    capsys.readouterr()
    run([*tiny_imdb_args, "algo=supervised_nlpo"])
    words = said(capsys)
    assert "its metrics differ from the recorded ones" in words and RESULTS_BEFORE in words
    assert (sup / RESULTS_BEFORE).read_bytes() == old_bytes
    now = json.loads((sup / "results.json").read_text())
    assert now["metrics"]["test"]["sentiment"] == pytest.approx(recorded["metrics"]["test"]["sentiment"] - 0.25)


def test_a_retrain_whose_scores_differ_in_a_scorer_s_last_digits_keeps_the_record(
        tiny_imdb_args, supervised_without_weights, capsys):
    """CommonGen's Supervised seed 0, trained again for its weights, decoded its recorded texts on every prompt;
    only BERTScore moved, by 1e-9. That is the recorded run, and its record stays as it was."""
    sup = supervised_without_weights
    recorded = json.loads((sup / "results.json").read_text())
    recorded["metrics"]["test"]["sentiment"] += 3e-9
    (sup / "results.json").write_text(json.dumps(recorded))
    record = record_files(sup)
    capsys.readouterr()
    run([*tiny_imdb_args, "algo=supervised_nlpo"])
    assert "its record (results, logs, predictions) is kept" in said(capsys)
    assert record_files(sup) == record and not (sup / RESULTS_BEFORE).exists()


def test_a_failed_retrain_leaves_the_record_as_it_was(tiny_imdb_args, supervised_without_weights, monkeypatch):
    sup = supervised_without_weights
    record = record_files(sup)
    real_execute = Run._execute

    def fail_after_writing(self):
        if not self.for_weights_only:
            return real_execute(self)
        self.dir.start("half: true\n", self.hash)  # what a retrain writes before it dies
        (sup / "logs" / "train.jsonl").write_text("")
        raise RuntimeError("disk full")

    monkeypatch.setattr(Run, "_execute", fail_after_writing)
    with pytest.raises(RuntimeError, match="disk full"):
        run([*tiny_imdb_args, "algo=supervised_nlpo"])
    assert record_files(sup) == record and not (sup / "model").exists()
