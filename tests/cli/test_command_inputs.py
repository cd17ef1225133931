"""Each command's own arguments and input files: a user's mistake is refused with exit 2 and no traceback,
a filesystem refusal names the path and the setting to change, and a bug in grue keeps its traceback."""
from __future__ import annotations

import errno
import json

import pytest
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def refused(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result.output


@pytest.fixture
def files(tmp_path):
    (tmp_path / "broken.json").write_text('{"rows": [')
    (tmp_path / "other.json").write_text('{"name": "not a board"}')
    (tmp_path / "array.json").write_text("[1, 2]")
    (tmp_path / "rows.json").write_text('{"rows": [{"task": "imdb"}]}')
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "table.csv").write_text("task,algo\n")
    (tmp_path / "empty_runs").mkdir()
    (tmp_path / "a_file").write_text("")
    return tmp_path


@pytest.mark.parametrize("side, expected", [
    ("broken.json", "broken.json is not a JSON file"),
    ("binary.json", "binary.json is not a JSON file"),
    ("table.csv", "table.csv is not a JSON file"),
    ("other.json", "other.json is neither an exported leaderboard.json (no 'rows') nor a run's results.json"),
    ("array.json", "is neither an exported leaderboard.json"),
    ("empty_runs", "empty_runs holds no results.json"),
    ("rows.json", "rows.json: row 0 lacks some of algo, mean, metric"),
    ("missing", "is neither 'paper' nor an existing runs directory"),
])
def test_compare_refuses_what_is_neither_runs_nor_a_board(files, side, expected):
    assert expected in refused("compare", str(files / side), "paper")
    assert expected in refused("compare", "paper", str(files / side))


def test_compare_reads_a_single_runs_results_json_as_its_run(files):
    from grue.commands.compare import checked_side

    run = files / "run-1"
    run.mkdir()
    (run / "results.json").write_text(json.dumps({"task": "imdb", "metrics": {}}))
    assert checked_side(str(run / "results.json")) == str(run)
    (files / "board.json").write_text(json.dumps({"rows": []}))
    assert checked_side(str(files / "board.json")) == str(files / "board.json")


@pytest.mark.parametrize("args, expected", [
    (["format="], "unknown format (none given)"),
    (["format=pdf"], "unknown format pdf"),
    (["format=md,"], None),  # a trailing comma is harmless; `runs=` below is what is refused
    (["runs=MISSING"], "not a directory"),
    (["runs="], "runs=(none given)"),
])
def test_leaderboard_export_refuses_empty_or_unknown_formats_and_missing_runs(files, args, expected):
    args = [a.replace("MISSING", str(files / "nope")) for a in args]
    if expected is None:
        args, expected = [*args, f"runs={files / 'nope'}"], "not a directory"
    assert expected in refused("leaderboard", "export", *args, f"out={files / 'board'}")
    assert not (files / "board").exists()


def test_leaderboard_export_refuses_an_out_that_is_a_file(files):
    out = refused("leaderboard", "export", f"runs={files / 'empty_runs'}", f"out={files / 'a_file'}")
    assert f"out={files / 'a_file'}: {files / 'a_file'} is a file, not a directory; choose another out" in out


@pytest.mark.parametrize("option", [["--jobs", "0"], ["-j", "-3"], ["--timeout-min", "0"], ["--mem-gb", "0"]])
def test_sweep_refuses_counts_below_one(option):
    assert option[0] in refused("sweep", "task=imdb", "--dry-run", *option)


def _layout(root, files: dict[str, str | None]) -> None:
    """Files (text) and folders (None) under `root`."""
    for name, text in files.items():
        if text is None:
            (root / name).mkdir()
        else:
            (root / name).write_text(text)


@pytest.mark.parametrize("files, target, expected", [
    ({}, "", "is neither a model directory (no config.json) nor a run directory"),
    ({"tokenizer.json": "{}"}, "", "is neither a model directory"),
    ({"results.json": "{}"}, "", "is a run directory without a model/"),
    ({"run.json": "{}", "model": None}, "", "results.json is missing or unreadable"),
    ({"results.json": "{\"algo\": ", "model": None}, "", "results.json is missing or unreadable"),
    ({"weights.bin": ""}, "weights.bin", "is a file; give a run directory"),
])
def test_eval_refuses_a_path_that_is_not_a_model(tmp_path, files, target, expected):
    model = tmp_path / "not_a_model"
    model.mkdir()
    _layout(model, files)
    assert expected in refused("eval", "task=imdb", "profile=mini", f"model={model / target}",
                               f"output_dir={tmp_path / 'out'}")
    assert not (tmp_path / "out").exists()


def test_run_refuses_an_output_dir_that_is_a_file(files):
    out = refused("run", "task=imdb", "profile=mini", "algo=zero_shot", f"output_dir={files / 'a_file'}")
    assert f"output_dir={files / 'a_file'}: {files / 'a_file'} is a file, not a directory" in out


@pytest.mark.parametrize("command, keys", [
    (["score"], ["task=", "predictions=", "split=", "metrics=", "out=", "profile=", "--allow-partial"]),
    (["eval"], ["model=", "split=", "task=", "profile="]),
    (["run"], ["task=", "algo=", "seed=", "profile="]),
    (["leaderboard", "export"], ["format=", "out=", "runs=", "normalisation=", "rewards=", "split=", "paper="]),
    (["sweep"], ["key=value", "--jobs", "--dry-run"]),
])
def test_help_lists_every_key_value_argument(command, keys):
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for key in keys:
        assert key in result.output, key


def _raising(err: BaseException):
    def command() -> None:
        raise err
    return command


@pytest.mark.parametrize("err, expected", [
    (OSError(errno.ENOSPC, "No space left on device", "/data/runs/x/state.pt"),
     "error: the disk is full (/data/runs/x/state.pt): free space or choose another location (output_dir="),
    (PermissionError(errno.EACCES, "Permission denied", "/shared/cache"),
     "error: Permission denied (/shared/cache): choose another location"),
])
def test_a_filesystem_refusal_is_one_line_naming_the_path(monkeypatch, err, expected):
    monkeypatch.setattr("grue.commands.tasks.print_tasks", _raising(err))
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 2 and result.output.startswith(expected) and result.output.count("\n") == 1


def test_a_bug_keeps_its_traceback_and_asks_to_be_reported(monkeypatch):
    monkeypatch.setattr("grue.commands.tasks.print_tasks", _raising(ZeroDivisionError("division by zero")))
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 1 and isinstance(result.exception, ZeroDivisionError)
    assert "internal error (a bug, not a mistake in your input); please report it" in result.output


def test_an_asset_cache_that_cannot_be_created_names_grue_cache(files):
    result = runner.invoke(app, ["run", "task=imdb", "profile=mini", "algo=zero_shot",
                                 f"output_dir={files / 'runs'}"], env={"GRUE_CACHE": str(files / "a_file" / "cache")})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.startswith(f"error: a file stands where a directory is needed ({files / 'a_file'}")
    assert "GRUE_CACHE for the asset cache" in result.output
