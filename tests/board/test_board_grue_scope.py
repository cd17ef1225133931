"""A board holding a GRUE task keeps the paper's rows and the paper's Table 2 questions (a board of a user's
tasks alone has neither: tests/extending/test_user_task_board_text.py)."""
from __future__ import annotations

from board_fixtures import controlled_grid

from grue.board.build import build_board
from grue.board.numbers.questions import QUESTIONS


def test_a_board_holding_a_grue_task_keeps_the_paper_rows_and_questions(tmp_path):
    board = build_board(controlled_grid(tmp_path, {"zero_shot": (0.60, 40.0), "ppo": (0.70, 45.0)}))
    assert "paper" in set(board.agg["source"]) and set(board.agg.loc[board.agg["source"] == "paper", "task"]) > {"imdb"}
    assert {qid for qid, _, _ in QUESTIONS} <= set(board.questions["question_id"])
    assert not any("no paper rows" in note for note in board.notes)


def test_an_empty_board_is_the_papers_own(tmp_path):
    board = build_board([tmp_path])
    assert "paper" in set(board.agg["source"])
