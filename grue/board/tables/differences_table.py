"""The board's "What differs from PPO" table: for every RL row of a task, what sets it apart from its PPO row.

A referee's first question about two rows is what, besides the method's name, differs between them
(row_differences.py): the critic, the regulariser, samples per prompt, epochs, tokens spent, and the config
keys either algorithm reads. The board answers it for the pairs it compares: each RL row against the PPO row
of the same start and profile (fact_columns.reference_algo: PPO, Supervised+PPO, NLPO or Supervised+NLPO),
one line per pair. Any other pair is one command away: `grue compare RUNS --rows A,B`.
"""
from __future__ import annotations

from collections import Counter

from grue.board.build import Board
from grue.board.numbers.row_differences import (NOT_READ, Difference, board_rows, differences, differences_text,
                                                row_names)
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
                text = _compact(differences(other, row, algo_label(other.algo)))
                table.rows.append(Row({"task": name, "profile": row.key[4], "row": named[row.key],
                                       "against": named[other.key]}, {"differs": text or differences_text([])}))
    table.notes.append("Row names as `grue compare RUNS --rows A,B` takes them (algorithm@id where an algorithm has "
                       "several rows; the Setting column tells them apart). Listed: the critic, the regulariser, "
                       "samples per prompt, epochs and train tokens (the row's as a ratio of the PPO row's, outside "
                       "2 % only) where they differ, then every differing config key of the groups both read; the "
                       "settings of a group only the row's method reads are counted, not listed (`grue compare` "
                       "lists them).")
    return table


def _compact(lines: list[Difference]) -> str:
    """The differing lines, row's value first, with the keys of groups only one side reads counted per group:
    they are the method's own settings (every GRPO key is 'not read' by PPO), which `grue compare` lists."""
    shown, own = [], Counter()
    for line in (line for line in lines if line.differs):
        if not line.fact and NOT_READ in (line.a, line.b):
            own[(line.what.split(".")[0], line.a == NOT_READ)] += 1
        else:
            shown.append(f"{line.what} {line.b} vs {line.a}")
    for (group, row_reads), count in sorted(own.items()):
        whose = "the row's" if row_reads else "the PPO row's"
        shown.append(f"{whose} own {group} settings ({count} key{'s' if count > 1 else ''})")
    return "; ".join(shown)
