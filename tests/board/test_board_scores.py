"""GRUE scores: the documented normalisation, scores equal to a pandas recomputation, selection, win rate."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from board_fixtures import imdb_grid, results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.normalise import fit_pool
from grue.board.numbers.overall import win_rates

HIGHER = {"ter": False, "perplexity": False, "cider": True, "sacrebleu": True, "meteor": True, "blend": False}


def test_fixed_normalisation_follows_the_documented_formulas():
    means = {"a": {"ter": 0.54, "perplexity": 40.0, "cider": 1.0, "sacrebleu": 34.8, "meteor": 0.3},
             "b": {"ter": 0.50, "perplexity": 30.0, "cider": 1.5, "sacrebleu": 0.35, "meteor": 0.3},
             "zero": {"ter": 0.60, "perplexity": 32.0, "cider": 0.5, "sacrebleu": 0.30, "meteor": 0.3}}
    fit = fit_pool(means, HIGHER, "fixed", anchors={"perplexity": 32.0})
    assert fit("ter", 0.54) == pytest.approx(0.46)
    assert fit("ter", 54.0) == pytest.approx(0.46)           # TER above 2 is a percentage
    assert fit("perplexity", 40.0) == pytest.approx(32 / 40)  # zero-shot anchor / perplexity
    assert fit("perplexity", 30.0) == 1.0                     # better than the anchor is capped at 1
    assert fit("cider", 1.0) == pytest.approx(0.5)            # min-max over the pool [0.5, 1.5]
    assert fit("sacrebleu", 34.8) == pytest.approx(0.348)     # percent scale read as a percentage
    assert fit("meteor", 0.3) == pytest.approx(0.3)


def test_minmax_and_rank_modes():
    means = {"a": {"perplexity": 40.0, "meteor": 0.1}, "b": {"perplexity": 30.0, "meteor": 0.3},
             "c": {"perplexity": 35.0, "meteor": 0.3}}
    minmax = fit_pool(means, HIGHER, "minmax")
    assert minmax("perplexity", 35.0) == pytest.approx(0.5) and minmax("perplexity", 30.0) == 1.0
    assert minmax("meteor", 0.2) == pytest.approx(0.5)
    rank = fit_pool(means, HIGHER, "rank")
    assert rank("perplexity", 30.0) == 1.0 and rank("perplexity", 40.0) == 0.0
    assert rank("meteor", 0.3) == pytest.approx(0.75)  # beats a, ties the other 0.3
    constant = fit_pool({"a": {"meteor": 0.2}, "b": {"meteor": 0.2}}, HIGHER, "minmax")
    assert constant("meteor", 0.2) == 0.5


def test_scores_equal_an_independent_pandas_computation(tmp_path):
    paths = imdb_grid(tmp_path, seeds=6)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    rows = []
    for p in paths:
        doc = json.loads((p / "results.json").read_text())
        rows.append({"algo": doc["algo"], **doc["metrics"]["test"]})
    means = pd.DataFrame(rows).groupby("algo").mean()
    anchor = means.loc["zero_shot", "perplexity"]
    expected_task = means["sentiment"].clip(0, 1)
    expected_nat = (anchor / means["perplexity"]).clip(0, 1)
    got = board.overall.set_index("algo")
    for algo in means.index:
        assert got.loc[algo, "imdb:task"] == pytest.approx(expected_task[algo], rel=1e-12)
        assert got.loc[algo, "imdb:naturalness"] == pytest.approx(expected_nat[algo], rel=1e-12)
        assert got.loc[algo, "grue_score"] == pytest.approx((expected_task[algo] + expected_nat[algo]) / 2, rel=1e-12)
    assert list(got["tasks"].unique()) == [1]


def _two_rewards(root, val_best: str, test_best: str) -> None:
    for reward in ("meteor", "rouge_avg"):
        for seed in range(2):
            val = 0.6 if reward == val_best else 0.4
            test = 0.6 if reward == test_best else 0.4
            doc = results_doc("imdb", "ppo", seed, {"val": {"sentiment": val + seed / 100}, "test": {"sentiment": test}},
                              reward=reward)
            write_run(root, doc)


def test_selection_uses_validation_not_test(tmp_path):
    _two_rewards(tmp_path, val_best="meteor", test_best="rouge_avg")
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    chosen = board.selection.iloc[0]
    assert (chosen["reward"], chosen["selected_on"], chosen["n_candidates"]) == ("meteor", "val", 2)
    assert "rouge_avg" in chosen["candidates"]
    assert board.overall.iloc[0]["imdb:task"] == pytest.approx(0.4)  # the test score of the val-selected reward
    averaged = build_board([tmp_path], BoardOptions(with_paper=False, rewards="average"))
    assert averaged.overall.iloc[0]["imdb:task"] == pytest.approx(0.5)


def test_mean_win_rate_by_hand():
    raw = pd.DataFrame({"source": "runs", "profile": "mini", "task": "imdb",
                        "algo": ["a", "b", "c", "a", "b", "c"], "metric": ["sentiment"] * 3 + ["perplexity"] * 3,
                        "mean": [0.6, 0.5, 0.5, 30.0, 31.0, 29.0], "higher_is_better": [True] * 3 + [False] * 3})
    rates = win_rates(raw)
    assert rates[("runs", "mini", "a")] == (pytest.approx((1.0 + 0.5) / 2), 2)
    assert rates[("runs", "mini", "b")] == (pytest.approx((0.25 + 0.0) / 2), 2)
    assert rates[("runs", "mini", "c")] == (pytest.approx((0.25 + 1.0) / 2), 2)


def test_missing_table1_metric_is_left_out_not_zero(tmp_path):
    for seed in range(2):
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6}}))
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    entry = board.entries.iloc[0]
    assert entry["task_score"] == pytest.approx(0.6) and math.isnan(entry["naturalness_score"])
    assert entry["missing_metrics"] == "perplexity"
    assert board.overall.iloc[0]["grue_score"] == pytest.approx(0.6)
