"""The label-budget curve: runs on learned rewards become points (oracle metric against labels used,
mean over seeds), the task's other runs become the levels it is read against, and the site shows it."""
from __future__ import annotations

import statistics

import pytest

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.collect import collect
from grue.board.numbers.label_budget import budget_points, reference_levels
from grue.board.render.plots import level_label
from grue.board.render.site import write_site

# (schedule, labels, seed) -> (test sentiment, reward-model held-out accuracy); fixture values, not results
LEARNED = {("offline", 100, 0): (0.70, 0.30), ("offline", 100, 1): (0.72, 0.26),
           ("offline", 400, 0): (0.78, 0.64), ("offline", 400, 1): (0.74, 0.70),
           ("batched", 400, 0): (0.77, 0.66)}
LEVELS = {("zero_shot", 0): 0.64, ("zero_shot", 1): 0.66, ("ppo", 0): 0.75, ("ppo", 1): 0.73}


def learned_doc(schedule, labels, seed, sentiment, accuracy):
    doc = results_doc("imdb", "ppo", seed, {"test": {"sentiment": sentiment, "perplexity": 60.0},
                                            "val": {"sentiment": sentiment - 0.01, "perplexity": 60.0}}, reward="learned")
    doc["config"] = {"reward": {"schedule": schedule, "labels": labels}}
    doc["config_hash"] = f"fixture-learned-{schedule}-{labels}"
    rounds = [{"round": 0, "labels": labels // 2, "heldout_accuracy": 0.1, "heldout_auc": 0.5}] if schedule == "batched" else []
    doc["reward_learning"] = {"labels_used": labels,
                              "rounds": rounds + [{"round": len(rounds), "labels": labels, "heldout_accuracy": accuracy,
                                                   "heldout_auc": 0.7}]}
    return doc


@pytest.fixture
def study(tmp_path):
    for (schedule, labels, seed), (sentiment, accuracy) in LEARNED.items():
        write_run(tmp_path, learned_doc(schedule, labels, seed, sentiment, accuracy), f"learned-{schedule}-{labels}-s{seed}")
    for (algo, seed), sentiment in LEVELS.items():
        doc = results_doc("imdb", algo, seed, {"test": {"sentiment": sentiment, "perplexity": 60.0}},
                          reward=None if algo == "zero_shot" else "sentiment")
        write_run(tmp_path, doc)
    return tmp_path


def test_points_average_seeds_per_schedule_and_budget(study):
    points = budget_points(collect([study]).runs, "imdb", "test").set_index(["schedule", "labels"])
    assert sorted(points.index) == [("batched", 400), ("offline", 100), ("offline", 400)]
    for (schedule, labels), row in points.iterrows():
        cells = [v for (s, n, _), v in LEARNED.items() if (s, n) == (schedule, labels)]
        assert row["n"] == len(cells)
        assert row["mean"] == pytest.approx(statistics.fmean(c[0] for c in cells))
        assert row["rm_accuracy"] == pytest.approx(statistics.fmean(c[1] for c in cells))  # the last round's
        if len(cells) > 1:
            assert row["std"] == pytest.approx(statistics.stdev(c[0] for c in cells))


def test_levels_are_the_runs_without_a_learned_reward(study):
    levels = reference_levels(collect([study]).runs, "imdb", "test", ["mini"]).set_index("algo")
    assert sorted(levels.index) == ["ppo", "zero_shot"]
    assert levels.loc["ppo", "mean"] == pytest.approx((0.75 + 0.73) / 2) and levels.loc["ppo", "reward"] == "sentiment"
    assert levels.loc["zero_shot", "mean"] == pytest.approx(0.65)
    assert reference_levels(collect([study]).runs, "imdb", "test", ["paper"]).empty


def test_each_level_names_the_oracle_reward_it_was_trained_on(study):
    """Two direct arms of one algorithm (P(positive) and its standardised form) must not share a legend entry."""
    before = tuple(study.glob("*"))  # then a second oracle arm beside the fixture's `sentiment` one
    for seed, sentiment in ((0, 0.79), (1, 0.81)):
        doc = results_doc("imdb", "ppo", seed, {"test": {"sentiment": sentiment, "perplexity": 60.0}},
                          reward="sentiment_normalised")
        doc["config_hash"] = "fixture-scaled"
        write_run(study, doc, f"scaled-s{seed}")
    assert len(tuple(study.glob("*"))) == len(before) + 2
    levels = reference_levels(collect([study]).runs, "imdb", "test", ["mini"])
    labels = {row["reward"] or "none": level_label(row) for _, row in levels.iterrows()}
    assert labels == {"none": "Zero-Shot, 2 seed(s)", "sentiment": "PPO on the oracle (sentiment), 2 seed(s)",
                      "sentiment_normalised": "PPO on the oracle (sentiment_normalised), 2 seed(s)"}


def test_the_task_page_shows_the_curve_only_where_there_are_learned_rewards(study, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    write_site(build_board([study], BoardOptions()), out)
    page = (out / "task-imdb.html").read_text()
    assert "Label budget" in page and (out / "budget-imdb-mini.png").read_bytes()[:4] == b"\x89PNG"
    plain = tmp_path_factory.mktemp("plain")
    for (algo, seed), sentiment in LEVELS.items():
        write_run(plain, results_doc("imdb", algo, seed, {"test": {"sentiment": sentiment, "perplexity": 60.0}},
                                     reward=None if algo == "zero_shot" else "sentiment"))
    out2 = tmp_path_factory.mktemp("site2")
    write_site(build_board([plain], BoardOptions()), out2)
    assert "Label budget" not in (out2 / "task-imdb.html").read_text() and not (out2 / "budget-imdb-mini.png").exists()
