"""`grue compare` and `grue eval` on inputs a careless user gives: refused in one line, nothing written
over an input, nothing loaded from a model folder that lacks part of itself."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli import app

runner = CliRunner()

ROW = {"task": "imdb", "algo": "ppo", "split": "test", "metric": "sentiment", "reward": "sentiment", "mean": 0.6,
       "std": 0.01, "n": 3}


def refused(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result.output


def board(tmp_path, rows, name="board.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"rows": rows}))
    return path


def test_compare_refuses_a_board_with_no_rows(tmp_path):
    assert "holds no rows" in refused("compare", str(board(tmp_path, [])), "paper")


@pytest.mark.parametrize("change, expected", [
    ({"mean": "high"}, "row 1: 'mean' is str, not a number"),
    ({"n": True}, "row 1: 'n' is bool, not a number"),
    ({"task": 7}, "row 1: 'task' is int, not text"),
    ({"metric": ""}, "row 1: 'metric' is str, not text"),
    ({"reward": ["a"]}, "row 1: 'reward' is list, not text"),
])
def test_compare_refuses_ill_typed_rows_instead_of_matching_nothing(tmp_path, change, expected):
    path = board(tmp_path, [ROW, {**ROW, **change}])
    out = refused("compare", str(path), "paper")
    assert expected in out and "1 ill-typed row(s)" in out


def test_compare_never_writes_its_report_over_an_input(tmp_path):
    path = board(tmp_path, [ROW])
    before = path.read_bytes()
    assert "would destroy it" in refused("compare", str(path), "paper", "--out", str(path))
    assert path.read_bytes() == before


def test_compare_never_writes_over_a_runs_results_json_or_a_file_in_a_runs_directory(tmp_path):
    run = tmp_path / "runs" / "run-1"
    run.mkdir(parents=True)
    results = run / "results.json"
    results.write_text(json.dumps({"task": "imdb", "algo": "ppo", "metrics": {}}))
    before = results.read_bytes()
    assert "would destroy it" in refused("compare", str(results), "paper", "--out", str(results))
    assert "would replace it" in refused("compare", str(tmp_path / "runs"), "paper", "--out", str(results))
    assert results.read_bytes() == before


def test_compare_refuses_a_report_whose_csv_would_replace_an_input(tmp_path):
    path = board(tmp_path, [ROW], name="report.csv")  # a board saved under a .csv name
    path.write_text(json.dumps({"rows": [ROW]}))
    assert "report.csv" in refused("compare", str(path), "paper", "--out", str(tmp_path / "report.md"))


@pytest.mark.parametrize("files, lacks", [
    ({"config.json": "{}"}, "lacks weights (model.safetensors or pytorch_model.bin), a tokenizer"),
    ({"config.json": "{}", "model.safetensors": ""}, "lacks a tokenizer"),
    ({"config.json": "{}", "tokenizer.json": "{}"}, "lacks weights"),
])
def test_eval_names_what_an_incomplete_model_folder_lacks(tmp_path, files, lacks):
    model = tmp_path / "model"
    model.mkdir()
    for name, text in files.items():
        (model / name).write_text(text)
    assert lacks in refused("eval", "task=imdb", "profile=mini", f"model={model}", f"output_dir={tmp_path / 'out'}")
    assert not (tmp_path / "out").exists()


def test_eval_names_what_a_runs_model_folder_lacks(tmp_path):
    run = tmp_path / "run"
    (run / "model").mkdir(parents=True)
    (run / "results.json").write_text(json.dumps({"algo": "ppo"}))
    (run / "model" / "config.json").write_text("{}")
    assert "lacks weights" in refused("eval", "task=imdb", "profile=mini", f"model={run}",
                                      f"output_dir={tmp_path / 'out'}")
