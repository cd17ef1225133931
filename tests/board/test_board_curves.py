"""Learning curves and the checkpoint report read the runner's logs and survive a torn last line."""
from __future__ import annotations

import json

import pytest

from board_fixtures import imdb_grid
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.collect import collect
from grue.board.numbers.curves import checkpoint_report, eval_frame, train_frame
from grue.board.numbers.samples import side_by_side


def test_train_curve_steps_are_cumulative_tokens(tmp_path):
    imdb_grid(tmp_path, seeds=2, algos=("ppo",), logs=True)  # each train log ends with half a line
    train = train_frame(collect([tmp_path]).runs)
    one = train[train["seed"] == 0].sort_values("iteration")
    assert list(one["iteration"]) == [0, 1, 2, 3, 4]
    assert list(one["steps"]) == [768.0 * k for k in range(1, 6)]


def test_resumed_logs_keep_the_last_line_per_iteration(tmp_path):
    run = imdb_grid(tmp_path, seeds=1, algos=("ppo",), logs=True)[0]
    with open(run / "logs" / "train.jsonl", "a") as handle:
        handle.write("\n" + json.dumps({"iteration": 4, "tokens": 100, "reward_mean": 9.0}) + "\n")
    train = train_frame(collect([tmp_path]).runs)
    assert len(train) == 5 and train.iloc[-1]["reward_mean"] == 9.0 and train.iloc[-1]["steps"] == 4 * 768 + 100


def test_checkpoint_report_shows_best_and_last(tmp_path):
    run = imdb_grid(tmp_path, seeds=1, algos=("zero_shot",), logs=True)[0]
    report = checkpoint_report(collect([tmp_path]).runs).iloc[0]
    evals = [json.loads(l) for l in (run / "logs" / "eval.jsonl").read_text().splitlines()]
    values = [e["metrics"]["sentiment"] for e in evals]
    assert report["metric"] == "sentiment" and report["reported"] == "final policy"
    assert report["last_iteration"] == 4 and report["best_value"] == pytest.approx(max(values))
    assert report["best_iteration"] == values.index(max(values))
    assert set(eval_frame(collect([tmp_path]).runs)["metric"]) == {"sentiment", "perplexity"}


def test_samples_line_up_the_same_prompts_per_algorithm(tmp_path):
    imdb_grid(tmp_path, seeds=2, algos=("supervised", "nlpo"), logs=True)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    samples = side_by_side(board.found.runs, board.selection, "imdb", "mini", limit=3)
    assert [s.id for s in samples] == ["val-0", "val-1", "val-2"]
    assert list(samples[0].generations) == ["supervised", "nlpo"]  # the paper's order
    assert samples[0].generations["nlpo"][0].startswith("[nlpo s0]")  # the lowest seed
