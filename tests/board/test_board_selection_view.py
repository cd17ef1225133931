"""The rendered selection table shows what a reader of these runs needs: every choice among the runs, and
the paper's published choices only on the tasks run here where the paper had more than one candidate
(it listed all 44 paper rows before); a note counts the rows left out, and the CSV export keeps them all."""
from __future__ import annotations

import csv

from board_fixtures import imdb_grid, results_doc, write_run

from grue.board.build import build_board
from grue.board.export import board_markdown, export_board
from grue.board.tables.views import selection_table


def _cnn_runs(root):
    """Zero-shot and PPO on CNN/DailyMail (mini), PPO trained on two rewards: a choice of ours to show."""
    for algo, reward, score in (("zero_shot", None, 0.20), ("ppo", "rouge1", 0.30), ("ppo", "meteor", 0.25)):
        for seed in range(2):
            metrics = {split: {"rouge1": score + 0.01 * seed, "bertscore": 0.8} for split in ("val", "test")}
            write_run(root, results_doc("cnn_dailymail", algo, seed, metrics, reward=reward))


def _paper_rows(board) -> int:
    return int((board.selection["source"] != "runs").sum())


def test_imdb_runs_see_only_their_own_choices(tmp_path):
    imdb_grid(tmp_path, seeds=2, algos=("zero_shot", "ppo"))
    board = build_board([tmp_path])
    table = selection_table(board)
    assert [(r.labels["source"], r.labels["task"], r.labels["algo"]) for r in table.rows] == [
        ("runs", "imdb", "Zero-Shot"), ("runs", "imdb", "PPO")]  # the paper's IMDB rows each had one reward
    left = _paper_rows(board)
    assert left >= 40  # the paper's choices over its seven tasks are all still on the board
    assert any(note.startswith(f"{left} of the paper's published choices are not listed here") for note in table.notes)


def test_the_paper_s_real_choices_on_a_task_run_here_are_shown(tmp_path):
    _cnn_runs(tmp_path)
    board = build_board([tmp_path])
    table = selection_table(board)
    ours = [r for r in table.rows if r.labels["source"] == "runs"]
    paper = [r for r in table.rows if r.labels["source"] != "runs"]
    assert [(r.labels["algo"], r.labels["reward"], r.cells["n_candidates"]) for r in ours] == [
        ("Zero-Shot", "", "1"), ("PPO", "rouge1", "2")]  # PPO chosen on validation among two rewards
    # paper Table 17: the RL rows were trained on three rewards each (meteor, rouge1, rouge_avg); zero-shot,
    # supervised and Lead-3 have one row each, so nothing was chosen there
    assert {r.labels["task"] for r in paper} == {"cnn_dailymail"}
    assert sorted(r.labels["algo"] for r in paper) == ["NLPO", "PPO", "Supervised+NLPO", "Supervised+PPO"]
    assert all(r.cells["n_candidates"] == "3" and r.reference for r in paper)
    left = _paper_rows(board) - 4
    assert any(note.startswith(f"{left} of the paper's published choices") for note in table.notes)
    selection = board_markdown(board).split("## Selection by validation score")[1]
    assert selection.count("(paper)*") == 4


def test_the_csv_export_keeps_every_selection_row(tmp_path):
    _cnn_runs(tmp_path / "runs")
    board, written = export_board([tmp_path / "runs"], tmp_path / "out", ["csv"])
    path = next(p for p in written["csv"] if p.name == "leaderboard-selection.csv")
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(board.selection) == 2 + _paper_rows(board)
