"""The board of a user's own task says what fits that task (issue 47): its own mini data in the banner,
no paper rows and no paper Table 2 questions (the critic question stays: it is grue's, asked of any task),
its `python:` metric titled by its function and drawn on the learning curves."""
from __future__ import annotations

import json

from grue.board.build import build_board
from grue.board.export import board_markdown
from grue.board.numbers.questions import QUESTIONS
from grue.board.render.plots import curve_metrics

METRIC = "python:my_metrics.py:topic_hit"


def _write_run(root, algo: str, seed: int, value: float) -> None:
    """A results.json of the user's task as a run writes it (docs/results_schema.md), its values given."""
    metrics = {s: {METRIC: value, "rouge1": 0.3, "distinct_1": 0.5} for s in ("val", "test")}
    doc = {"schema_version": 1, "status": "complete", "task": "echo_topic", "algo": algo, "profile": "mini",
           "seed": seed, "reward": "python:my_rewards.py:overlap", "init_model": "x", "comparable_to_paper": False,
           "config_hash": f"h-{algo}", "versions": {"grue": "test"}, "git_commit": None,
           "created": "2026-01-01T00:00:00+00:00", "wall_time_s": 1.0,
           "config": {"task": "echo_topic", "algo": algo, "profile": "mini", "seed": seed,
                      "model": {"policy": "x", "value_model": "shared"}},
           "splits": {s: {"source": s, "n_samples": 6} for s in metrics}, "metrics": metrics,
           "metrics_unavailable": {}, "higher_is_better": {METRIC: True, "rouge1": True, "distinct_1": True}}
    run_dir = root / f"echo-{algo}-s{seed}"
    run_dir.mkdir(parents=True)
    (run_dir / "results.json").write_text(json.dumps(doc), encoding="utf-8")


def _user_runs(user_task, root):
    from tasks import load_task_file

    load_task_file(str(user_task))  # what GRUE_TASKS_PATH or a recorded task_file does for the board
    for algo, values in (("zero_shot", [0.5, 0.52]), ("ppo", [0.7, 0.72]), ("grpo", [0.6, 0.61])):
        for seed, value in enumerate(values):
            _write_run(root, algo, seed, value)
    return build_board([root])


def test_the_banner_names_the_tasks_own_mini_data(user_task, tmp_path):
    markdown = board_markdown(_user_runs(user_task, tmp_path / "runs"))
    assert "Profile mini: small CPU-sized models, data and budgets (Echo: six hand-written sentences; a few " \
           "iterations)" in markdown                           # the task file's `description:`
    assert "review snippets" not in markdown and "Rotten Tomatoes" not in markdown


def test_a_board_of_user_tasks_alone_has_no_paper_rows_or_table_2_questions(user_task, tmp_path):
    board = _user_runs(user_task, tmp_path / "runs")
    assert set(board.agg["source"]) == {"runs"}
    assert any("no paper rows" in note for note in board.notes)
    asked = set(board.questions["question_id"])
    assert asked and not asked & {qid for qid, _, _ in QUESTIONS}       # none of the paper's Table 2
    assert all(qid.startswith("critic_worth_cost") for qid in asked)   # grue's own question stays


def test_a_python_metric_is_titled_by_its_function_and_drawn_on_the_curves(user_task, tmp_path):
    markdown = board_markdown(_user_runs(user_task, tmp_path / "runs"))
    header = next(line for line in markdown.splitlines() if line.startswith("| Algorithm") and "rouge1" in line)
    assert "| topic_hit ↑ |" in header and METRIC not in header
    assert f"topic_hit = {METRIC}" in markdown                      # the full reference said once, under it
    assert curve_metrics("echo_topic", {METRIC, "rouge1", "distinct_1"}) == ["rouge1", METRIC, "distinct_1"]
    assert curve_metrics("imdb", {"sentiment", "perplexity", "msttr"}) == ["sentiment", "perplexity"]  # Figure 4
