"""`grue eval` is a check, not a run: it writes beside runs/, takes the run's task and profile, says
when it cannot decode as the run did, and never becomes a leaderboard row."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from cli import app
from grue.board.numbers.collect import collect
from grue.config import load_config
from grue.run.runner import Run


def test_an_evaluation_of_a_run_directory_stays_off_the_board(tiny_imdb_args, tmp_path, monkeypatch):
    run_dir = Run(load_config([*tiny_imdb_args, "algo=nlpo"]), [*tiny_imdb_args, "algo=nlpo"]).execute()
    monkeypatch.chdir(tmp_path)
    # no task= or profile=: they come from the run directory (the paper profile would be the default)
    args = [a for a in tiny_imdb_args if not a.startswith(("task=", "profile=", "output_dir="))]
    result = CliRunner().invoke(app, ["eval", *args, f"model={run_dir}", "split=val"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "decodes without the mask" in result.output
    [written] = list((tmp_path / "evals").glob("eval-imdb-mini-nlpo-*/results.json"))
    doc = json.loads(written.read_text())
    assert (doc["task"], doc["profile"], doc["kind"]) == ("imdb", "mini", "evaluation")
    assert doc["config"]["nlpo"]["mask_at_eval"] is False  # the record says how it decoded
    board = collect([tmp_path / "runs", tmp_path / "evals"])
    assert [r.path for r in board.runs] == [run_dir]  # the run counts, the evaluation does not
    assert any("grue eval" in " ".join(s.reasons) for s in board.skipped)
