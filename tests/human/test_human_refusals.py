"""`grue human ...` under the README's promise: a bad input is one line and exit code 2 before any work,
and no command writes over a study's own files (answers, items, links)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from grue.commands.human import human_app
from grue.human.frame import ratings_frame
from grue.human.study import load_study
from human_fixtures import answer_all, build_study, write_run

runner = CliRunner()


def refuse(*args: str) -> str:
    result = runner.invoke(human_app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    return result.output


@pytest.fixture
def answered(tmp_path):
    study, tokens = build_study(tmp_path)
    answer_all(study, tokens["rater-01"], lambda item, order: {"sentiment": "4", "coherence": "4"})
    return study


@pytest.mark.parametrize("command, name", [
    ("export", "answers.sqlite"), ("export", "items.jsonl"), ("export", "study.json"), ("export", "links.txt"),
    ("export", "."), ("export-comparisons", "answers.sqlite"),
])
def test_an_out_that_is_one_of_the_studys_files_is_refused_and_the_file_kept(answered, command, name):
    target = answered.root / name
    # SQLite may fold its journal into the database file whenever a connection closes, so the answers
    # file is compared by its answers, the others byte for byte
    before = target.read_bytes() if target.is_file() and target != answered.db_path else None
    assert "would destroy it" in refuse(command, f"study={answered.root}", f"out={target}")
    assert before is None or target.read_bytes() == before
    assert len(ratings_frame(load_study(answered.root))) == 2 * len(answered.items)


@pytest.mark.parametrize("args, expected", [
    (("min_seconds=nan",), "min_seconds=nan must be a finite number of at least 0"),
    (("min_seconds=-1",), "must be a finite number of at least 0"),
    (("min_seconds=soon",), "min_seconds='soon' is not a number"),
    (("qualify=maybe",), "qualify='maybe': use yes|no"),
    (("colour=red",), "unknown argument colour="),
])
def test_report_settings_are_refused_before_any_statistics(answered, args, expected):
    assert expected in refuse("report", f"study={answered.root}", *args)
    assert not (answered.root / "report").exists()


def test_a_report_out_that_is_the_study_folder_is_refused(answered):
    assert "would destroy it" in refuse("report", f"study={answered.root}", f"out={answered.root}")
    assert "would destroy it" in refuse("report", f"study={answered.root}", f"out={answered.root.parent}")


def test_a_report_out_holding_other_files_is_refused_but_a_report_folder_is_rewritten(answered, tmp_path):
    mine = tmp_path / "docs"
    mine.mkdir()
    (mine / "report.md").write_text("my own notes")
    assert "grue did not write (it holds report.md" in refuse("report", f"study={answered.root}", f"out={mine}")
    assert (mine / "report.md").read_text() == "my own notes"
    for _ in range(2):  # the second time over its own earlier report
        result = runner.invoke(human_app, ["report", f"study={answered.root}", f"out={tmp_path / 'rep'}"])
        assert result.exit_code == 0, result.output


def test_a_pool_of_zero_raters_is_refused(tmp_path):
    for algo in ("zero_shot", "ppo"):
        write_run(tmp_path / "runs", "imdb", algo)
    assert "pool=0 must be at least 1" in refuse("make-study", "kind=ratings", "task=imdb", f"runs={tmp_path / 'runs'}",
                                                 "samples=4", "pool=0", f"out={tmp_path / 'study'}")
    assert not (tmp_path / "study").exists()


@pytest.mark.parametrize("line", ['{"id": "x"}', '["a list"]', '{"id": 3, "prompt": 1, "generation": "g"}', "{broken"])
def test_bad_prediction_lines_in_make_study_are_named_not_a_traceback(tmp_path, line):
    runs = [write_run(tmp_path / "runs", "imdb", algo) for algo in ("zero_shot", "ppo")]
    predictions = runs[1] / "predictions" / "test.jsonl"
    predictions.write_text(predictions.read_text() + line + "\n")
    out = refuse("make-study", "kind=ratings", "task=imdb", f"runs={tmp_path / 'runs'}", "samples=4",
                 f"out={tmp_path / 'study'}")
    lines = len(predictions.read_text().splitlines())
    assert f"{predictions}: 1 problem: line {lines}:" in out


@pytest.mark.parametrize("edit, expected", [
    (lambda doc: [doc], "a JSON list, not an object"),
    (lambda doc: {k: v for k, v in doc.items() if k != "systems"}, "'systems' must be a dict"),
    (lambda doc: {**doc, "raters_per_item": "three"}, "'raters_per_item' must be a int"),
    (lambda doc: {**doc, "protocol": {}}, "the protocol lacks"),
])
@pytest.mark.parametrize("command", ["report", "export", "serve"])
def test_a_wrong_shaped_study_json_is_one_line_in_every_command(answered, edit, expected, command, tmp_path):
    path = answered.root / "study.json"
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    args = [f"out={tmp_path / 'x.csv'}"] if command == "export" else []
    assert expected in refuse(command, f"study={answered.root}", *args)


def test_a_corrupt_answers_database_is_named(answered):
    answered.db_path.write_bytes(b"this is not a database" * 50)
    for suffix in ("-wal", "-shm"):
        answered.db_path.with_name(answered.db_path.name + suffix).unlink(missing_ok=True)
    assert "is not an SQLite database" in refuse("report", f"study={answered.root}")


def test_a_truncated_answers_database_is_named(answered):
    import sqlite3

    connection = sqlite3.connect(answered.db_path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every answer into the main file
    connection.close()
    for suffix in ("-wal", "-shm"):
        answered.db_path.with_name(answered.db_path.name + suffix).unlink(missing_ok=True)
    data = answered.db_path.read_bytes()
    assert len(data) > 4096  # more than the header page: a cut loses tables
    answered.db_path.write_bytes(data[:len(data) // 2])
    assert "answers.sqlite is damaged" in refuse("report", f"study={answered.root}")


def test_an_answers_database_that_is_a_directory_is_named(tmp_path):
    study, _ = build_study(tmp_path)
    study.db_path.unlink()
    study.db_path.mkdir()
    assert "is a directory" in refuse("report", f"study={study.root}")


@pytest.mark.parametrize("port", ["-1", "70000"])
def test_serve_refuses_a_port_outside_the_range(answered, port):
    result = runner.invoke(human_app, ["serve", f"study={answered.root}", "--port", port])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "Invalid value" in result.output
    assert "less than or equal to 65535" in result.output or "greater than or equal to 0" in result.output


def test_serve_refuses_a_host_that_is_no_interface(answered):
    assert "--host 'no such host..'" in refuse("serve", f"study={answered.root}", "--host", "no such host..")


@pytest.mark.parametrize("content, expected", [
    (None, "no such rater links file"), ("rater-01\n", "line(s) 1 are not '<rater> /r/<token>'"), ("", "lists no rater"),
])
def test_serve_names_a_missing_or_malformed_links_file_not_the_port(answered, content, expected):
    links = answered.root / "links.txt"
    links.unlink()
    if content is not None:
        links.write_text(content)
    out = refuse("serve", f"study={answered.root}", "--port", "0")
    assert expected in out and "cannot listen" not in out


def test_import_reports_rejected_rows_left_out(answered, tmp_path):
    item = next(iter(answered.items))
    path = tmp_path / "results.csv"
    path.write_text("WorkerId,AssignmentStatus,Input.item_id,Answer.sentiment,Answer.coherence\n"
                    f"W1,Approved,{item},3,3\nW2,Rejected,{item},1,1\n")
    result = runner.invoke(human_app, ["import", f"study={answered.root}", f"results={path}"])
    assert result.exit_code == 0, result.output
    assert "imported 1 answers" in result.output and "1 rejected assignment(s) left out" in result.output


def test_export_comparisons_refuses_to_append_to_a_file_that_is_not_a_comparisons_file(tmp_path):
    study, tokens = build_study(tmp_path, kind="comparisons")
    for token in tokens.values():
        answer_all(study, token, lambda item, order: {"choice": "0"})
    notes = tmp_path / "notes.csv"
    notes.write_text("name,score\nalice,3\n")
    assert "not JSON" in refuse("export-comparisons", f"study={study.root}", f"out={notes}")
    assert notes.read_text() == "name,score\nalice,3\n"
