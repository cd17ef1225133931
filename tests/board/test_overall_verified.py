"""The overall board says which rows a board verified (issue 41): per row, on how many of its tasks every
seed was verified by `grue leaderboard add`, some seeds were, or none; a runs folder's own rows say "not
verified" beside them, and a board that verified nothing shows no such column at all."""
from __future__ import annotations

import pandas as pd

from grue.board.numbers.overall import overall_board, verified_seeds
from grue.board.tables.views import verified_tasks_text

KEYS = {"source": "runs", "reward": "sentiment", "init_model": "m", "profile": "mini", "setting": "", "split": "test"}


def _chosen(rows):
    return pd.DataFrame([{**KEYS, "setting_label": "", "task": t, "algo": a, "task_score": 0.5,
                          "naturalness_score": 0.5, "score": 0.5, "n": n, "missing_metrics": ""} for t, a, n in rows])


def _agg(rows):
    """Aggregate rows: (task, algo, metric, verified seeds)."""
    return pd.DataFrame([{**KEYS, "setting_label": "", "task": t, "algo": a, "metric": m, "verified": v}
                         for t, a, m, v in rows])


def test_each_entry_counts_the_seeds_verified_on_every_metric():
    chosen = _chosen([("imdb", "ppo", 3), ("imdb", "grpo", 3), ("commongen", "ppo", 2)])
    agg = _agg([("imdb", "ppo", "sentiment", 3), ("imdb", "ppo", "perplexity", 3),
                ("imdb", "grpo", "sentiment", 2), ("imdb", "grpo", "perplexity", 1),  # the fewest counts
                ("commongen", "ppo", "meteor", 0)])
    assert verified_seeds(chosen, agg).tolist() == [3, 1, 0]


def test_overall_rows_count_fully_and_partly_verified_tasks():
    chosen = _chosen([("imdb", "ppo", 3), ("commongen", "ppo", 2), ("imdb", "grpo", 3)])
    agg = _agg([("imdb", "ppo", "sentiment", 3), ("commongen", "ppo", "meteor", 1), ("imdb", "grpo", "sentiment", 0)])
    raw = pd.DataFrame(columns=["source", "profile", "algo", "task", "metric", "higher_is_better", "mean"])
    board = overall_board(chosen, raw, agg).set_index("algo")
    assert (board.loc["ppo", "verified_tasks"], board.loc["ppo", "partly_verified_tasks"]) == (1, 1)
    assert (board.loc["grpo", "verified_tasks"], board.loc["grpo", "partly_verified_tasks"]) == (0, 0)
    assert verified_tasks_text(board.loc["ppo"].to_dict()) == "✓ 1/2 tasks, some seeds on 1 task"
    assert verified_tasks_text(board.loc["grpo"].to_dict()) == "not verified"
    assert verified_tasks_text({"verified_tasks": 1, "partly_verified_tasks": 0, "tasks": 1}) == "✓ 1/1 task"


def test_the_overall_table_shows_the_column_only_where_a_board_verified_something(tmp_path):
    from grue.board.tables import views

    chosen = _chosen([("imdb", "ppo", 3), ("imdb", "grpo", 3)])
    raw = pd.DataFrame(columns=["source", "profile", "algo", "task", "metric", "higher_is_better", "mean"])

    class Options:
        normalisation = "fixed"

    class StandIn:
        options, intervals, tasks = Options(), {}, ["imdb"]
        selection = pd.DataFrame({"setting_label": [""]})

    for verified, shown in ((3, True), (0, False)):
        board = StandIn()
        board.overall = overall_board(chosen, raw, _agg([("imdb", "ppo", "sentiment", verified),
                                                         ("imdb", "grpo", "sentiment", 0)]))
        table = views.overall_tables(board)[0]
        labels = [c.label for c in table.label_columns]
        assert ("Verified" in labels) is shown
        if shown:
            texts = {r.labels["algo"]: r.labels["verified"] for r in table.rows}
            assert texts == {"PPO": "✓ 1/1 task", "GRPO": "not verified"}
