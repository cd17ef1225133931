"""`grue score` on data of one's own: lines that carry their references are scored without a task split
(`split=none`, or automatically when none of their ids is in the split), marked not a leaderboard
submission, and the board keeps refusing them."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from cli import app
from grue.board.numbers.collect import collect

runner = CliRunner()


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


OWN = [{"id": "h000", "generation": "the cat sat", "references": ["the cat sat on the mat"]},
       {"id": "h001", "generation": "dogs bark", "references": "a dog barks"}]


def _score(user_task, *args):
    return runner.invoke(app, ["score", f"task={user_task}", "profile=mini", "metrics=rouge1", *args])


def test_foreign_ids_with_references_are_scored_as_own_data_with_a_message(user_task, tmp_path):
    preds, out = _write(tmp_path / "own.jsonl", OWN), tmp_path / "own.results.json"
    result = _score(user_task, f"predictions={preds}", f"out={out}")
    assert result.exit_code == 0, result.output
    assert "not a leaderboard submission" in result.output and "split=none" in result.output
    doc = json.loads(out.read_text())
    assert doc["status"] == "unsplit" and list(doc["metrics"]) == ["none"] and doc["comparable_to_paper"] is False
    assert doc["splits"]["none"]["n_samples"] == 2
    # ROUGE-1 F (stemmed): 3 of 3 words against 3 of 6 (0.667); 2 of 2 against 2 of 3 (dogs/dog, bark/barks: 0.8)
    assert abs(doc["metrics"]["none"]["rouge1"] - (2 / 3 + 0.8) / 2) < 1e-6


def test_split_none_is_asked_for_and_needs_references_on_every_line(user_task, tmp_path):
    preds = _write(tmp_path / "own.jsonl", OWN)
    result = _score(user_task, f"predictions={preds}", "split=none", f"out={tmp_path / 'r.json'}")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "r.json").read_text())["leaderboard"].startswith("not a submission")

    bare = _write(tmp_path / "bare.jsonl", [*OWN, {"id": "h002", "generation": "no references"}])
    refused = _score(user_task, f"predictions={bare}", "split=none")
    assert refused.exit_code == 2 and refused.output.startswith("error:")
    assert "id 'h002' has none" in refused.output and len(refused.output.strip().splitlines()) == 1


def test_a_file_mixing_split_ids_and_foreign_ids_is_still_refused(user_task, tmp_path):
    mixed = _write(tmp_path / "mixed.jsonl", [{"id": "test0-0", "generation": "x", "references": ["y"]}, *OWN])
    result = _score(user_task, f"predictions={mixed}")
    assert result.exit_code == 2 and "id 'h000' is not in the split" in result.output


def test_the_board_refuses_an_unsplit_result(user_task, tmp_path):
    preds = _write(tmp_path / "own.jsonl", OWN)
    runs = tmp_path / "scored"
    runs.mkdir()
    assert _score(user_task, f"predictions={preds}", "split=none", f"out={runs / 'results.json'}").exit_code == 0
    found = collect([runs])
    assert not found.runs
    [skipped] = found.skipped
    assert any("unsplit" in reason for reason in skipped.reasons)
