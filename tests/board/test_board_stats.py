"""Welch's test, Holm's correction, pairwise tests and the Table 2 answers."""
from __future__ import annotations

import math

import pytest
from scipy import stats

from board_fixtures import controlled_grid, imdb_grid
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.stats import NOT_TESTABLE, holm, verdict, welch, welch_from_stats


def test_holm_against_hand_values():
    # sorted: 0.005 (x4) = 0.02, 0.01 (x3) = 0.03, 0.03 (x2) = 0.06, 0.04 (x1) = 0.04 -> running max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    adjusted = holm([0.2, math.nan, 0.01])  # untestable entries are outside the family (m = 2)
    assert adjusted[0] == pytest.approx(0.2) and math.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.02)
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])  # capped at 1, monotone


def test_welch_matches_scipy():
    a, b = [0.61, 0.59, 0.63, 0.60, 0.62], [0.55, 0.58, 0.52, 0.57]
    ours, ref = welch(a, b), stats.ttest_ind(a, b, equal_var=False)
    assert ours.t == pytest.approx(ref.statistic) and ours.p == pytest.approx(ref.pvalue)
    from_stats = welch_from_stats(0.602, 0.012, 5, 0.539, 0.004, 5)
    ref = stats.ttest_ind_from_stats(0.602, 0.012, 5, 0.539, 0.004, 5, equal_var=False)
    assert from_stats.p == pytest.approx(ref.pvalue)
    assert verdict(from_stats, from_stats.p, higher_is_better=True) == "a better"
    assert verdict(from_stats, from_stats.p, higher_is_better=False) == "b better"


def test_fewer_than_two_seeds_is_not_testable():
    single = welch([0.6], [0.5, 0.52])
    assert not single.testable and single.reason.startswith(NOT_TESTABLE)
    assert verdict(single, math.nan, True).startswith(NOT_TESTABLE)


def test_pairwise_tests_use_selected_per_seed_scores(tmp_path):
    imdb_grid(tmp_path, seeds=4)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    tests = board.tests[board.tests["measure"] == "task_score"]
    assert len(tests) == 15  # 6 algorithms -> 15 pairs, one Holm family
    seeds = board.seeds[(board.seeds["split"] == "test") & (board.seeds["metric"] == "sentiment")]
    row = tests[(tests["a"] == "supervised") & (tests["b"] == "ppo")].iloc[0]  # pairs follow the paper's order
    ref = stats.ttest_ind(seeds[seeds["algo"] == "supervised"]["value"], seeds[seeds["algo"] == "ppo"]["value"],
                          equal_var=False)
    assert row["p"] == pytest.approx(ref.pvalue)
    assert row["p_holm"] == pytest.approx(holm(list(tests["p"]))[list(tests.index).index(row.name)])
    significant = tests[tests["p_holm"] < 0.05]
    assert all(v in (f"{a} better", f"{b} better") for a, b, v in zip(significant["a"], significant["b"], significant["verdict"]))


MEANS = {"zero_shot": (0.49, 32.0), "supervised": (0.54, 35.5), "ppo": (0.60, 33.8), "nlpo": (0.61, 33.8),
         "supervised_ppo": (0.626, 35.0), "supervised_nlpo": (0.66, 34.8)}


def test_table2_questions_answered_with_evidence(tmp_path):
    controlled_grid(tmp_path, MEANS, seeds=4)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    answers = board.questions.set_index("question_id")
    assert answers.loc["rl_gt_sup_auto", "answer"] == "yes"
    assert answers.loc["supnlpo_gt_supppo_auto", "answer"] == "yes"
    assert answers.loc["suprl_gt_sup_auto", "answer"] == "yes"
    assert answers.loc["reward_hackable", "answer"] == "yes"  # sentiment up, perplexity up vs zero-shot
    assert "Holm p=" in answers.loc["rl_gt_sup_auto", "evidence"] and "n=4" in answers.loc["rl_gt_sup_auto", "evidence"]
    assert answers.loc["rl_gt_sup_human", "answer"] == "not answerable"
    assert bool(answers.loc["rl_gt_sup_auto", "paper_answer"]) is True  # the paper's IMDB answer, shown beside


def test_one_seed_gives_not_testable_never_a_verdict(tmp_path):
    controlled_grid(tmp_path, MEANS, seeds=1)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    auto = board.questions[~board.questions["question_id"].str.endswith("human")]
    assert set(auto["answer"]) == {NOT_TESTABLE}
    assert board.tests["verdict"].str.startswith(NOT_TESTABLE).all()


def test_a_measure_no_run_reports_makes_no_family():
    """CommonGen's naturalness metrics are unavailable here: its 17 methods made 136 'not testable (0 and 0)'
    lines on the board. A measure no run of the task reports now makes no family; the other measure still does."""
    import pandas as pd

    from grue.board.numbers.pairwise import pairwise_tests

    picked = pd.DataFrame([{"profile": "mini", "task": "commongen", "algo": algo, "split": "test", "seed": seed,
                            "task_score": 0.2 + seed / 100 + (algo == "ppo") / 10, "naturalness_score": math.nan}
                           for algo in ("zero_shot", "ppo", "grpo") for seed in range(3)])
    tests = pairwise_tests(picked)
    assert set(tests["measure"]) == {"task_score"} and len(tests) == 3
    picked.loc[picked["algo"] == "ppo", "naturalness_score"] = 0.5  # one algorithm reports it: its pairs stay
    tests = pairwise_tests(picked)
    assert len(tests[tests["measure"] == "naturalness_score"]) == 3
