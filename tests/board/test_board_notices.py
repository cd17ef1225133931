"""Exported boards say what a reader must know beside the numbers: mini rows are not comparable to the
paper, and why a zero-shot row can lead the overall board."""
from __future__ import annotations

from board_fixtures import controlled_grid

from grue.board.build import build_board
from grue.board.export import board_markdown
from grue.board.tables.task_tables import MINI_NOTICE


def test_mini_rows_carry_the_not_comparable_notice_in_every_table(tmp_path):
    runs = controlled_grid(tmp_path, {"zero_shot": (0.60, 40.0), "ppo": (0.70, 45.0)})
    markdown = board_markdown(build_board(runs))
    assert markdown.count(MINI_NOTICE) >= 2  # the IMDB table and the overall board at least


def test_a_zero_shot_leader_by_naturalness_is_explained(tmp_path):
    # zero-shot has the better (lower) perplexity and only a slightly lower sentiment: it leads overall
    runs = controlled_grid(tmp_path, {"zero_shot": (0.69, 30.0), "ppo": (0.70, 60.0)})
    assert "Zero-Shot leads here through Naturalness" in board_markdown(build_board(runs))


def test_no_such_note_when_a_trained_row_leads(tmp_path):
    runs = controlled_grid(tmp_path, {"zero_shot": (0.40, 40.0), "ppo": (0.90, 41.0)})
    assert "Zero-Shot leads" not in board_markdown(build_board(runs))
