"""The board's "What differs from PPO" table: for every RL row of a task, what sets it apart from its PPO row.

A referee's first question about two rows is what, besides the method's name, differs between them
(row_differences.py): the critic, the regulariser, samples per prompt, epochs, tokens spent, and the config
keys either algorithm reads. The board answers it for the pairs it compares: each RL row against the PPO row
of the same start and profile (fact_columns.reference_algo: PPO, Supervised+PPO, NLPO or Supervised+NLPO),
one line per pair. Any other pair is one command away: `grue compare RUNS --rows A,B`.
"""
from __future__ import annotations

from grue.board.build import Board
from grue.board.numbers.row_differences import board_rows, differences, differences_text, row_names
from grue.board.tables.fact_columns import reference_algo
from grue.board.tables.table import Column, Row, Table
from grue.board.task_info import algo_label, algo_rank, ordered_tasks


def differences_table(board: Board, task: str | None = None) -> Table:
    """One line per (RL row, its PPO row) of `task` (every task when None); no rows when there is no pair."""
    table = Table("What differs from PPO", [Column("task", "Task"), Column("profile", "Profile"),
                                            Column("row", "Row"), Column("against", "PPO row")],
                  [Column("differs", "What differs (row vs PPO row)", numeric=False)], anchor="differences")
    by_task = board_rows(board.found.runs)
    for name in ordered_tasks(set(by_task) if task is None else {task} & set(by_task)):
        named = {row.key: n for n, row in row_names(by_task[name]).items()}
        rows = sorted(by_task[name], key=lambda r: (r.key[4], algo_rank(r.algo), named[r.key]))
        for row in rows:
            reference = reference_algo(row.algo)
            if reference is None or reference == row.algo:
                continue
            for other in (r for r in rows if r.algo == reference and r.key[4] == row.key[4]):
                lines = differences(other, row, algo_label(other.algo))
                text = "; ".join(f"{line.what} {line.b} vs {line.a}" for line in lines if line.differs)
                table.rows.append(Row({"task": name, "profile": row.key[4], "row": named[row.key],
                                       "against": named[other.key]}, {"differs": text or differences_text([])}))
    table.notes.append("Row names as `grue compare RUNS --rows A,B` takes them (algorithm@id where an algorithm has "
                       "several rows; the Setting column tells them apart). Listed: the critic, the regulariser, "
                       "samples per prompt, epochs and train tokens (the row's as a ratio of the PPO row's, outside "
                       "2 % only) where they differ, then every differing config key of the groups either reads.")
    return table
