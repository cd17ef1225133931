"""`grue human ...` end to end on fixture runs: make-study, answers, report, export, import; refusals."""
from __future__ import annotations

import csv
import json
import random

import pytest
from typer.testing import CliRunner

from grue.commands.human import human_app
from grue.human.study import load_study
from human_fixtures import answer_all, write_run

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(human_app, list(args))


def refuse(*args: str) -> str:
    result = _invoke(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    return result.output


def _study(tmp_path, kind="ratings"):
    for algo in ("zero_shot", "ppo"):
        write_run(tmp_path / "runs", "imdb", algo)
    result = _invoke("make-study", f"kind={kind}", "task=imdb", f"runs={tmp_path / 'runs'}", "samples=8",
                     f"out={tmp_path / 'study'}", "seed=1")
    assert result.exit_code == 0, result.output
    assert "16 items, 2 attention checks, 3 raters" in result.output or kind != "ratings"
    return load_study(tmp_path / "study")


def test_make_study_then_report_writes_the_papers_columns_and_tests(tmp_path):
    study = _study(tmp_path)
    tokens = dict(line.split() for line in (study.root / "links.txt").read_text().splitlines())
    rng = random.Random(0)
    for n, path in enumerate(tokens.values()):
        def rate(item, order, n=n):
            if item.gold:
                return {"sentiment": str(item.gold["value"]), "coherence": str(item.gold["value"])}
            base = 4 if "upbeat" in item.candidates[0].text else 2
            return {axis: str(min(5, max(1, base + rng.choice((-1, 0, 1)) - (n == 2)))) for axis in study.axes}
        answer_all(study, path.removeprefix("/r/"), rate)
    result = _invoke("report", f"study={study.root}", "qualify=yes")
    assert result.exit_code == 0, result.output
    assert "one-way ANOVA" in result.output and "Tukey HSD" in result.output
    doc = json.loads((study.root / "report" / "report.json").read_text())
    assert {(row["label"], row["axis"]) for row in doc["summary"]} == {
        (a, x) for a in ("ppo", "zero_shot") for x in ("sentiment", "coherence")}
    ppo = next(r for r in doc["summary"] if r["label"] == "ppo" and r["axis"] == "sentiment")
    assert ppo["raters"] == 3 and ppo["n"] == 24 and 3 < ppo["mean"] < 5
    assert doc["tukey"]["sentiment"][0]["meandiff"] < 0  # zero_shot - ppo: the fixture's ppo texts are rated higher
    assert (study.root / "report" / "report.html").read_text().count("<table") == 4


def test_export_and_import_round_trip_through_the_cli(tmp_path):
    study = _study(tmp_path)
    batch = tmp_path / "batch.csv"
    assert _invoke("export", f"study={study.root}", f"out={batch}").exit_code == 0
    rows = list(csv.DictReader(batch.open()))
    results = tmp_path / "results.csv"
    with results.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["WorkerId", "WorkTimeInSeconds", "Input.item_id", "Answer.sentiment", "Answer.coherence"])
        for row in rows:
            for worker in ("W1", "W2", "W3"):
                writer.writerow([worker, "12", row["item_id"], "3", "4"])
    result = _invoke("import", f"study={study.root}", f"results={results}")
    assert result.exit_code == 0 and f"imported {3 * len(rows)} answers" in result.output
    assert "already has an answer" in refuse("import", f"study={study.root}", f"results={results}")


@pytest.mark.parametrize("args, expected", [
    (("make-study", "kind=votes", "task=imdb", "out=x"), "kind='votes': use ratings|comparisons"),
    (("make-study", "kind=ratings", "task=imdb"), "out= is required"),
    (("make-study", "kind=ratings", "task=imdb", "out=x", "samples=many"), "samples='many' is not a whole number"),
    (("make-study", "kind=ratings", "task=imdb", "out=x", "colour=red"), "unknown argument colour="),
    (("report", "study=/nonexistent/study"), "is not a study directory"),
    (("report",), "study=DIR is required"),
    (("serve", "study=/nonexistent/study"), "is not a study directory"),
])
def test_bad_arguments_get_one_line(args, expected):
    assert expected in refuse(*args)


def test_report_and_export_refusals_name_the_problem(tmp_path):
    study = _study(tmp_path)
    assert "qualify='maybe'" in refuse("report", f"study={study.root}", "qualify=maybe")
    assert "alpha_level='fuzzy'" in refuse("report", f"study={study.root}", "alpha_level=fuzzy")
    assert "only comparisons studies" in refuse("export-comparisons", f"study={study.root}", f"out={tmp_path / 'c.jsonl'}")
    assert "missing.csv: no such results CSV" in refuse("import", f"study={study.root}",
                                                        f"results={tmp_path / 'missing.csv'}")


def test_board_writes_the_human_page(tmp_path):
    study = _study(tmp_path)
    tokens = dict(line.split() for line in (study.root / "links.txt").read_text().splitlines())
    for n, path in enumerate(tokens.values()):
        answer_all(study, path.removeprefix("/r/"), lambda item, order, n=n: {
            "sentiment": str(1 + (n + len(item.id)) % 5), "coherence": str(1 + n % 5)})
    result = _invoke("board", f"studies={study.root}", "qualify=no", f"out={tmp_path / 'site'}")  # raters who
    # answer by pattern fail the attention checks: every one is counted here
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "human.html").read_text()
    assert 'id="human-scores"' in page and "paper (Table 9)" in page and "human_figure2.png" in page
    assert (tmp_path / "site" / "human_figure2.png").read_bytes().startswith(b"\x89PNG")
    assert "is not a study directory" in refuse("board", f"studies={tmp_path / 'nothing'}")


def test_export_comparisons_applies_the_reports_reading_time_rule(tmp_path):
    """qualify=yes leaves out the raters the report's rules leave out, min_seconds= included: raters who
    agree, pass their attention checks and spend 100 s an item qualify by default and fail min_seconds=1000."""
    study = _study(tmp_path, kind="comparisons")
    tokens = dict(line.split() for line in (study.root / "links.txt").read_text().splitlines())

    def choose(item, order):  # the gold answer on attention checks, else everyone the same candidate
        wanted = item.gold["choice"] if item.gold else 0
        return {"choice": str(list(order).index(wanted))}

    for path in tokens.values():
        answer_all(study, path.removeprefix("/r/"), choose)
    default = _invoke("export-comparisons", f"study={study.root}", f"out={tmp_path / 'a.jsonl'}", "qualify=yes")
    assert default.exit_code == 0, default.output
    assert "appended 0" not in default.output and "unqualified" not in default.output
    strict = _invoke("export-comparisons", f"study={study.root}", f"out={tmp_path / 'b.jsonl'}", "qualify=yes",
                     "min_seconds=1000")
    assert strict.exit_code == 0, strict.output
    assert "appended 0 comparisons" in strict.output and f"{len(tokens)} unqualified raters left out" in strict.output
    assert "min_seconds='soon'" in refuse("export-comparisons", f"study={study.root}",
                                          f"out={tmp_path / 'x.jsonl'}", "qualify=yes", "min_seconds=soon")
