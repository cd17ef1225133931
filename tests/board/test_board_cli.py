"""`grue leaderboard export` writes all five formats with the same numbers; `grue compare` prints a report."""
from __future__ import annotations

import json

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from board_fixtures import imdb_grid, results_doc, write_run
from grue.commands.compare import compare
from grue.commands.leaderboard import leaderboard_app


def test_export_writes_every_format(tmp_path):
    paths = imdb_grid(tmp_path / "runs", seeds=3, logs=True)
    bad = results_doc("imdb", "ppo", 7, {"val": {"sentiment": 0.5}})
    bad["schema_version"] = 99
    write_run(tmp_path / "runs", bad, "bad-version")
    out = tmp_path / "out"
    result = CliRunner().invoke(leaderboard_app, ["export", f"runs={tmp_path / 'runs'}", f"out={out}",
                                                  "format=md,csv,json,latex,html"])
    assert result.exit_code == 0, result.output
    assert "18 run(s) counted, 1 skipped" in result.output and "schema_version 99" in result.output
    md = (out / "leaderboard.md").read_text()
    assert "Overall board — profile mini" in md and "(paper)" in md and "Table 2 questions" in md
    tex = (out / "leaderboard.tex").read_text()
    assert r"\toprule" in tex and r"\bottomrule" in tex and r"$\pm$" in tex and r"\textit{" in tex
    csv = pd.read_csv(out / "leaderboard.csv")
    ours = csv[csv["source"] == "runs"].set_index(["algo", "split", "metric"])
    expected = {}
    for p in paths:
        doc = json.loads((p / "results.json").read_text())
        expected.setdefault((doc["algo"], "test", "sentiment"), []).append(doc["metrics"]["test"]["sentiment"])
    for key, values in expected.items():
        assert ours.loc[key, "mean"] == pytest.approx(pd.Series(values).mean(), rel=1e-12)
        assert ours.loc[key, "std"] == pytest.approx(pd.Series(values).std(), rel=1e-12)
    doc = json.loads((out / "leaderboard.json").read_text())
    assert {"rows", "scores", "overall", "selection", "tests", "questions", "skipped"} <= set(doc)
    assert doc["skipped"][0]["path"].endswith("bad-version")
    assert (out / "site" / "index.html").exists() and (out / "site" / "task-imdb.html").exists()


def test_export_rejects_unknown_keys_and_formats(tmp_path):
    runner = CliRunner()
    assert runner.invoke(leaderboard_app, ["export", "colour=red"]).exit_code != 0
    assert runner.invoke(leaderboard_app, ["export", "format=pdf", f"out={tmp_path}"]).exit_code != 0
    assert runner.invoke(leaderboard_app, ["export", "normalisation=zscore", f"out={tmp_path}"]).exit_code != 0


def test_compare_command_prints_report(tmp_path):
    imdb_grid(tmp_path / "runs", seeds=2, algos=("ppo",))
    app = typer.Typer()
    app.command("compare")(compare)
    app.command("noop")(lambda: None)  # keep `compare` a named subcommand, as when mounted in cli.py
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "runs"), "paper", "--out", str(tmp_path / "c.md")])
    assert result.exit_code == 0, result.output
    assert "# grue compare" in result.output and "imdb / ppo" in result.output
    assert (tmp_path / "c.md").exists() and (tmp_path / "c.csv").exists()


@pytest.mark.parametrize("paper", ["yes", "no"])
def test_export_with_no_runs_still_writes_every_format(tmp_path, paper):
    (tmp_path / "runs").mkdir()
    result = CliRunner().invoke(leaderboard_app, ["export", f"runs={tmp_path / 'runs'}", f"out={tmp_path / 'out'}",
                                                  f"paper={paper}"])
    assert result.exit_code == 0, result.output
    assert "0 run(s) counted" in result.output
    assert (tmp_path / "out" / "site" / "index.html").exists() and (tmp_path / "out" / "leaderboard.tex").exists()


def test_a_runs_folders_about_note_heads_the_markdown_board_escaped(tmp_path):
    """A study's ABOUT.md (what its board can and cannot show) is printed under the title, so one export
    command remakes the whole page; its HTML is escaped and a folder without one adds nothing."""
    imdb_grid(tmp_path / "runs", seeds=2)
    (tmp_path / "runs" / "ABOUT.md").write_text("What this board cannot show: mini budgets.\n<script>x</script>\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(leaderboard_app, ["export", f"runs={tmp_path / 'runs'}", f"out={out}", "format=md"])
    assert result.exit_code == 0, result.output
    md = (out / "leaderboard.md").read_text()
    head = md.split("## ")[0]
    assert "What this board cannot show: mini budgets." in head and "&lt;script&gt;" in head
    assert "<script>" not in md and head.index("cannot show") < head.index("run(s) counted")
    (tmp_path / "runs" / "ABOUT.md").unlink()
    CliRunner().invoke(leaderboard_app, ["export", f"runs={tmp_path / 'runs'}", f"out={out}", "format=md"])
    assert "cannot show" not in (out / "leaderboard.md").read_text()
