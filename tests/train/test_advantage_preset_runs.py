"""Whole runs of gdpo and distill on the tiny models (tests/conftest.py `tiny_imdb_args`: 5 iterations of 24
tokens): a valid results file, the same generated tokens as every method, no critic; distillation from an
earlier run's directory, whose reverse KL reaches the log."""
from __future__ import annotations

import json
import math

from grue.config import load_config
from grue.results.schema import validate_results
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


def train_log(path):
    return [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]


def test_gdpo_and_distillation_from_a_run_directory_run_end_to_end(tiny_imdb_args, tmp_path):
    teacher_run = run([*tiny_imdb_args, "algo=gdpo"])
    for path, algo in ((teacher_run, "gdpo"),
                       (run([*tiny_imdb_args, "algo=distill", f"grpo.teacher.model={teacher_run}"]), "distill")):
        doc = json.loads((path / "results.json").read_text())
        assert validate_results(doc) == [] and doc["algo"] == algo
        log = train_log(path)
        assert [r["iteration"] for r in log] == [1, 2, 3, 4, 5]
        assert all(r["tokens"] == 24 and r["loss/value"] == 0.0 for r in log)
    # the student starts as the initial model, the teacher is the gdpo run's trained model: they differ at first
    assert all(math.isfinite(r["distill/reverse_kl"]) for r in log) and log[0]["distill/reverse_kl"] != 0
