"""results.json's `cost` on the board: validated when present, optional for older files, averaged over seeds
into the task table's cost columns beside the metrics."""
from __future__ import annotations

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.tables.task_tables import task_table
from grue.results.schema import validate_results

METRICS = {"val": {"sentiment": 0.6, "perplexity": 30.0}, "test": {"sentiment": 0.6, "perplexity": 30.0}}


def test_a_results_file_without_cost_stays_valid_and_a_bad_cost_is_named():
    doc = results_doc("imdb", "ppo", 0, METRICS)
    assert "cost" not in doc and validate_results(doc) == []
    doc["cost"] = {"train_generated_tokens": -1, "train_seconds": float("nan"), "eval_generated_tokens": {"test": 5}}
    assert validate_results(doc) == ["cost['train_generated_tokens'] is not a finite, non-negative number",
                                     "cost['train_seconds'] is not a finite, non-negative number"]
    doc["cost"] = {"train_generated_tokens": 6144, "train_seconds": 12.5, "eval_generated_tokens": []}
    assert validate_results(doc) == ["cost['eval_generated_tokens'] is not an object"]


def test_the_task_table_shows_each_row_s_mean_cost_over_seeds(tmp_path):
    for seed, (tokens, seconds) in enumerate([(6144, 100.0), (6208, 120.0)]):
        doc = results_doc("imdb", "grpo", seed, METRICS)
        doc["cost"] = {"train_generated_tokens": tokens, "train_seconds": seconds}
        write_run(tmp_path, doc)
    write_run(tmp_path, results_doc("imdb", "ppo", 0, METRICS))  # an older file: no cost recorded
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    table = task_table(board.agg, "imdb", "test", with_paper=False)
    numbers = [c for c in table.value_columns if c.numeric]  # the critic/regulariser text columns come last
    assert [c.label for c in numbers[-2:]] == ["Train tokens", "Train s"]  # no best-of-n here
    rows = {r.labels["algo"]: r for r in table.rows}
    tokens, seconds = rows["GRPO"].cells["cost:train_generated_tokens"], rows["GRPO"].cells["cost:train_seconds"]
    assert (tokens.mean, round(tokens.std, 3), tokens.n) == (6176.0, 45.255, 2)  # std of 6144, 6208
    assert (seconds.mean, round(seconds.std, 3)) == (110.0, 14.142)
    assert tokens.text() == "6176 ± 45" and not tokens.bold
    assert table.cell_text(rows["PPO"], numbers[-1]) == "—"
