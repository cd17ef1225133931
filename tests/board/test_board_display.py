"""What a reader sees first: headline columns, task coverage, real n and CI, honest formatting and notes."""
from __future__ import annotations

import json
import math

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from scipy import stats

from board_fixtures import imdb_grid, results_doc, write_logs, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.collect import collect
from grue.board.compare import compare_frames, report
from grue.board.numbers.curves import checkpoint_report
from grue.board.numbers.reference import reference_frame
from grue.board.render.plots import _single_x
from grue.board.tables.table import Cell, Column, Row, Table
from grue.board.tables.task_tables import task_table
from grue.board.tables.views import naturalness_note, overall_tables


def test_headline_columns_come_first_and_complete_rows_rank_first(tmp_path):
    for seed in range(2):  # PPO on two tasks, a strong "supervised" on one task only
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6, "perplexity": 34.0}}))
        write_run(tmp_path, results_doc("commongen", "ppo", seed, {"test": {"rouge2": 0.1, "spice": 0.2}},
                                        reward="rouge1"))
        write_run(tmp_path, results_doc("imdb", "supervised", seed, {"test": {"sentiment": 0.9, "perplexity": 30.0}},
                                        reward=None))
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    table = overall_tables(board)[0]
    assert [c.label for c in table.value_columns[:4]] == ["Task score", "Naturalness", "GRUE score", "Mean win rate"]
    assert [(r.labels["algo"], r.labels["tasks"]) for r in table.rows] == [("PPO", "2/7"), ("Supervised", "1/7")]
    assert board.overall.set_index("algo").loc["supervised", "grue_score"] > board.overall.set_index("algo").loc["ppo", "grue_score"]


def test_naturalness_says_over_how_many_tasks_it_averages(tmp_path):
    for seed in range(2):
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6, "perplexity": 34.0}}))
        write_run(tmp_path, results_doc("commongen", "ppo", seed, {"test": {"rouge2": 0.1}}, reward="rouge1"))
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    table = overall_tables(board)[0]
    assert table.rows[0].labels["tasks"] == "2/7 (naturalness 1)"
    assert table.rows[0].cells["naturalness_score"].describe() == "mean over 1 task(s): IMDB"


def test_overall_tooltips_carry_the_seed_count_and_ci(tmp_path):
    paths = imdb_grid(tmp_path, seeds=4, algos=("zero_shot", "ppo"))
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    row = next(r for r in overall_tables(board)[0].rows if r.labels["algo"] == "PPO")
    cell = row.cells["imdb:task"]
    sentiments = [json.loads((p / "results.json").read_text())["metrics"]["test"]["sentiment"]
                  for p in paths if "-ppo-" in p.name]
    low, high = stats.t.interval(0.95, 3, loc=sum(sentiments) / 4, scale=stats.sem(sentiments))  # IMDB task = sentiment
    assert cell.n == 4 and cell.ci_low == pytest.approx(low) and cell.ci_high == pytest.approx(high)
    assert cell.describe().startswith("n=4 seed(s); 95% CI")


def test_figure2_note_says_how_naturalness_was_normalised(tmp_path):
    imdb_grid(tmp_path, seeds=2, algos=("zero_shot", "ppo"))
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    note = naturalness_note(board, "runs", "mini", ["imdb"])
    anchor = board.agg[(board.agg["algo"] == "zero_shot") & (board.agg["split"] == "test")
                       & (board.agg["metric"] == "perplexity")]["mean"].iloc[0]
    assert f"{anchor:.4g} / perplexity (zero-shot anchor)" in note and "1.0 by construction" in note


def test_table2_on_a_small_board_says_what_is_missing(tmp_path):
    imdb_grid(tmp_path, seeds=2, algos=("ppo",))
    imdb_grid(tmp_path, seeds=1, algos=("supervised",), rng_seed=5)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    answers = board.questions.set_index("question_id")
    assert answers.loc["rl_gt_sup_auto", "detail"] == "needs Supervised and NLPO runs, 2+ seeds each (Supervised has 1)"
    assert answers.loc["needs_warm_start", "detail"] == ("needs NLPO, Supervised+PPO and Supervised+NLPO runs, "
                                                         "2+ seeds each")
    assert answers.loc["rl_gt_sup_auto", "evidence"] == ""  # one line: the detail says it all
    imdb_grid(tmp_path, seeds=2, algos=("supervised",), rng_seed=6)  # seed 1 joins: PPO vs Supervised is testable
    evidence = build_board([tmp_path], BoardOptions(with_paper=False)).questions.set_index("question_id")["evidence"]
    assert "nlpo: no runs vs supervised" in evidence["rl_gt_sup_auto"] and "nan" not in evidence["rl_gt_sup_auto"]


def test_counts_lengths_and_ties_print_honestly():
    assert Cell(5063.0, 14.832, count=True).text() == "5063 ± 15"
    assert Cell(57.4, 0.4, count=True).text() == "57 ± 0.4"
    commongen = task_table(reference_frame(), "commongen", "test")
    length = next(c for c in commongen.value_columns if c.key == "mean_output_length")
    assert length.higher_is_better is None and length.header == "mean_output_length"
    ours = [Row({"algo": a}, {"m": Cell(0.5)}) for a in ("a", "b")]
    tie = Table("t", [Column("algo", "Algorithm")], [Column("m", "m", True)], ours)
    tie.mark_best()
    assert not any(r.cells["m"].bold for r in tie.rows)


def _side(metric: str, n_samples: float) -> pd.DataFrame:
    return pd.DataFrame([{"task": "imdb", "algo": "ppo", "split": "test", "metric": metric, "reward": "sentiment",
                          "setting": "", "setting_label": "", "profile": "mini", "higher_is_better": True,
                          "mean": 5000.0, "std": 10.0, "n": 3, "n_samples": n_samples}])


def test_compare_gives_no_verdict_on_counts_over_different_sample_sizes():
    apart = compare_frames(_side("unique_1", 200), _side("unique_1", 5000)).iloc[0]
    assert apart["verdict"] == "not comparable: a corpus count over 200 vs 5000 samples" and math.isnan(apart["p_holm"])
    alike = compare_frames(_side("unique_1", 200), _side("unique_1", 200)).iloc[0]
    assert alike["verdict"] == "no significant difference"
    ratio = compare_frames(_side("distinct_1", 200), _side("distinct_1", 5000)).iloc[0]
    assert ratio["verdict"] == "no significant difference"  # a ratio does not grow with the corpus
    small = _side("unique_1", 200).assign(mean=437.4, std=0.4)
    assert "| 437 ± 0.4 (n=3) |" in report(compare_frames(small, small), "a", "b")  # counts print as integers


def test_checkpoint_report_notices_results_that_disagree_with_the_log(tmp_path):
    run = imdb_grid(tmp_path, seeds=1, algos=("ppo",))[0]
    write_logs(run, "ppo", 0)
    assert not checkpoint_report(collect([tmp_path]).runs).iloc[0]["agrees"]  # the fixture's values differ
    last = json.loads((run / "logs" / "eval.jsonl").read_text().splitlines()[-1])["metrics"]["sentiment"]
    doc = json.loads((run / "results.json").read_text())
    doc["metrics"]["val"]["sentiment"] = last
    (run / "results.json").write_text(json.dumps(doc))
    assert checkpoint_report(collect([tmp_path]).runs).iloc[0]["agrees"]


def test_a_single_point_panel_is_centred_on_its_point():
    fig, ax = plt.subplots()
    ax.plot([0], [0.5], "o")
    _single_x(ax, pd.Series([0, 0]))
    assert ax.get_xlim() == (-1.0, 1.0) and list(ax.get_xticks()) == [0.0]
    plt.close(fig)


def test_runs_without_the_measure_read_no_value_not_no_runs(tmp_path):
    """CommonGen's naturalness metrics are unavailable here, so its runs have no naturalness score; the evidence
    said 'zero_shot: no runs' beside three zero-shot runs."""
    from board_fixtures import results_doc, write_run

    for algo in ("zero_shot", "ppo"):
        for seed in (0, 1):
            write_run(tmp_path, results_doc("imdb", algo, seed, {"test": {"sentiment": 0.5 + seed / 10}},
                                            reward=None if algo == "zero_shot" else "sentiment"))
    evidence = build_board([tmp_path], BoardOptions(with_paper=False)).questions.set_index("question_id")["evidence"]
    hack = evidence["reward_hackable"]
    assert "zero_shot: no value reported vs ppo: no value reported on naturalness_score" in hack
    assert "nlpo: no runs vs zero_shot 0.5500 (n=2) on reward" in hack
