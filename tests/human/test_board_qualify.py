"""The leaderboard's human section counts only qualified raters by default, as the paper's numbers do,
says which it did, and `grue human board qualify=no` counts everyone."""
from __future__ import annotations

from typer.testing import CliRunner

from grue.commands.human import human_app
from grue.human.board_panel import human_section
from human_fixtures import answer_all, build_study


def _answer(careless: bool):
    def answer_for(item, order):
        if item.gold is not None:  # an attention check: a careless rater answers against its own text
            value = item.gold["value"] if not careless else 6 - item.gold["value"] if item.gold["value"] != 3 else 1
            return {"sentiment": str(value), "coherence": str(value)}
        return {"sentiment": "4", "coherence": "4"}
    return answer_for


def _study(tmp_path):
    study, tokens = build_study(tmp_path)
    for rater, token in tokens.items():
        answer_all(study, token, _answer(careless=rater == "rater-03"))
    return study


def test_the_section_leaves_out_raters_who_fail_the_attention_checks_unless_told_not_to(tmp_path):
    study = _study(tmp_path)
    ours = lambda section: section.scores[section.scores["source"] == "study"]  # noqa: E731
    qualified, everyone = human_section([study.root]), human_section([study.root], qualify=False)
    assert set(ours(qualified)["raters"]) == {2} and set(ours(everyone)["raters"]) == {3}
    assert qualified.qualified and not everyone.qualified


def test_the_page_says_which_raters_were_counted(tmp_path):
    study = _study(tmp_path)
    runner = CliRunner()
    for qualify, said in (("yes", "Only raters who pass"), ("no", "Every rater is counted")):
        out = tmp_path / f"site-{qualify}"
        result = runner.invoke(human_app, ["board", f"studies={study.root}", f"qualify={qualify}", f"out={out}"])
        assert result.exit_code == 0, result.output
        assert said in (out / "human.html").read_text() and said in (out / "human.md").read_text()


def test_leaderboard_export_takes_qualify_too(tmp_path):
    from grue.commands.leaderboard import leaderboard_app

    study = _study(tmp_path)
    runner = CliRunner()
    for qualify, said in (("yes", "Only raters who pass"), ("no", "Every rater is counted")):
        out = tmp_path / f"board-{qualify}"
        result = runner.invoke(leaderboard_app, ["export", f"runs={tmp_path / 'runs'}", f"studies={study.root}",
                                                 f"qualify={qualify}", "format=html", f"out={out}"])
        assert result.exit_code == 0, result.output
        assert said in (out / "site" / "human.html").read_text()
