"""`grue score` on a user's predictions file: every malformed file, path and partial file gets one line
naming the file (and line), exit 2, no traceback and nothing written; a partial file is scored only when
asked, and then says so in results.json, which the leaderboard's validation refuses with that reason."""
from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from cli import app
from grue.results.schema import validate_results

runner = CliRunner()
TASK = ["task=imdb", "profile=mini", "data.max_test=4", "metrics=msttr"]  # 4 test ids, a metric with no model
IDS = [f"test-{i}" for i in range(4)]


def score(*args: str):
    return runner.invoke(app, ["score", *TASK, *args])


def refused(result, *expected: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.output.startswith("error: "), result.output
    for text in expected:
        assert text in result.output, result.output
    return result.output


def line(**row) -> bytes:
    return (json.dumps(row) + "\n").encode()


FULL = b"".join(line(id=i, generation="a fine film") for i in IDS)


@pytest.mark.parametrize("content, expected", [
    (b"", "no predictions (the file is empty)"),
    (b"\n\n", "no predictions"),
    (b"not json\n", "p.jsonl:1: not JSON"),
    (b'[{"id": "test-0", "generation": "x"}]\n', "p.jsonl:1: a list where each line needs an object"),
    (line(id="test-0", generation="x") + b'"just a string"\n', "p.jsonl:2: a str where"),
    (line(id="test-0"), "p.jsonl:1: each line needs a string 'generation'"),
    (line(id="test-0", generation=["x"]), "each line needs a string 'generation'"),
    (line(generation="x"), "p.jsonl:1: each line needs an 'id'"),
    (line(id=None, generation="x"), "needs an 'id'"),
    (line(id="test-0", generation="x", references=[1]), "'references' must be a string or a non-empty list"),
    (line(id="test-0", generation="x", references=[]), "'references' must be"),
    (line(id="test-0", generation="x") + line(id="test-0", generation="y"),
     "p.jsonl:2: duplicate id 'test-0' (first on line 1)"),
    (line(id="review-99", generation="x"), "p.jsonl:1: id 'review-99' is not in the split"),
    (line(id="test-0", generation="x") + b'{"id": "test-1", "generation": "\xff\xfe"}\n', "p.jsonl:2: not UTF-8"),
])
def test_a_malformed_predictions_file_is_refused_with_its_file_and_line(tmp_path, content, expected):
    path = tmp_path / "p.jsonl"
    path.write_bytes(content)
    refused(score(f"predictions={path}"), expected)
    assert list(tmp_path.iterdir()) == [path]  # nothing written


def test_predictions_that_are_missing_or_a_directory_are_refused(tmp_path):
    refused(score(f"predictions={tmp_path / 'nope.jsonl'}"), "needs predictions=<an existing JSONL file>")
    refused(score(f"predictions={tmp_path}"), "needs predictions=")
    refused(score(), "needs predictions=")


@pytest.mark.parametrize("where", ["a_directory", "under_a_file", "read_only"])
def test_an_unwritable_out_is_refused_before_scoring(tmp_path, where):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(FULL)
    target = tmp_path / "out"
    if where == "a_directory":
        target.mkdir()
    elif where == "under_a_file":
        target.write_text("")
        target = target / "r.json"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into read-only directories")
        target.mkdir(mode=0o500)
        target = target / "r.json"
    refused(score(f"predictions={preds}", f"out={target}"), f"out={target}", "choose another out")


def test_a_partial_file_is_refused_unless_allowed_and_then_marked_partial(tmp_path):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(b"".join(line(id=i, generation="a fine film") for i in IDS[:2]))
    refused(score(f"predictions={preds}"), "p.jsonl covers 2 of the 4 ids of the test split", "--allow-partial")
    assert not preds.with_suffix(".results.json").exists()

    result = score(f"predictions={preds}", "--allow-partial")
    assert result.exit_code == 0, result.output
    assert "partial: " in result.output and "the leaderboard leaves this file out" in result.output
    doc = json.loads(preds.with_suffix(".results.json").read_text())
    assert doc["status"] == "partial" and doc["coverage"] == {"test": {"scored": 2, "total": 4}}
    assert "covers 2 of the 4 ids of its test split (a partial predictions file)" in validate_results(doc)


def test_a_file_covering_the_whole_split_is_complete_with_its_coverage(tmp_path):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(FULL)
    result = score(f"predictions={preds}", f"out={tmp_path / 'r.json'}")
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["status"] == "complete" and doc["coverage"] == {"test": {"scored": 4, "total": 4}}
    assert validate_results(doc) == []


def test_algo_and_seed_label_the_scored_row(tmp_path):
    """They were silently dropped: every file was scored as seed 0 Zero-Shot (issue 42)."""
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(FULL)
    result = score(f"predictions={preds}", f"out={tmp_path / 'r.json'}", "algo=ppo", "seed=2")
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "r.json").read_text())
    assert (doc["algo"], doc["seed"]) == ("ppo", 2) and validate_results(doc) == []


@pytest.mark.parametrize("args, expected", [
    (["split=train"], "split='train' is not one of val, test"),
    (["metrics="], "metrics= is empty"),
    (["metrics=bleu9"], "unknown metric 'bleu9'"),
    (["algo=ppo2"], "algo='ppo2' is not a registered algorithm"),
    (["seed=-1"], "seed='-1' is not a whole number"),
    (["seed=one"], "seed='one' is not a whole number"),
])
def test_bad_arguments_are_refused(tmp_path, args, expected):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(FULL)
    refused(score(f"predictions={preds}", *args), expected)


def test_a_missing_hub_asset_on_the_paper_profile_is_a_clear_error(tmp_path):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(FULL)
    result = runner.invoke(app, ["score", "task=imdb", f"predictions={preds}"],
                           env={"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty_hub_cache")})
    refused(result, "is not available on this machine", "profile=mini")


def test_the_board_skips_a_partial_file_and_says_why(tmp_path):
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(b"".join(line(id=i, generation="a fine film") for i in IDS[:3]))
    target = tmp_path / "runs" / "submission" / "results.json"
    assert score(f"predictions={preds}", f"out={target}", "--allow-partial").exit_code == 0
    board = runner.invoke(app, ["leaderboard", "export", f"runs={tmp_path / 'runs'}", f"out={tmp_path / 'board'}",
                                "format=md"])
    assert board.exit_code == 0, board.output
    assert "0 run(s) counted, 1 skipped" in board.output
    assert "covers 3 of the 4 ids of its test split (a partial predictions file)" in board.output


@pytest.mark.parametrize("split", ["test", "none"])
def test_out_naming_the_predictions_file_is_refused_and_the_generations_kept(tmp_path, split):
    """Issue 45: `out=` spelled as the predictions file (directly or by another path) wrote the results document
    over the generations."""
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(FULL)
    for spelled in (preds, tmp_path / "." / "p.jsonl"):
        refused(score(f"predictions={preds}", f"split={split}", f"out={spelled}"), "is the input", "choose another out")
        assert preds.read_bytes() == FULL
