"""The cost columns of a task table: what each row's runs spent beside what they scored.

From results.json's `cost` (grue/results/cost.py), averaged over the row's seeds: the tokens the policy
generated while training, the training steps' seconds, and for best-of-n the tokens sampled to evaluate the
split. A column appears only when some run of the table records it; the paper's rows and runs written before
costs were recorded show none. Costs have no direction, so they are never bolded.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.tables.table import Cell, Column

COST_COLUMNS: list[Column] = [Column("cost:train_generated_tokens", "Train tokens"),
                              Column("cost:train_seconds", "Train s"),
                              Column("cost:eval_generated_tokens", "Eval tokens (best-of-n)")]
COST_NOTE = ("Train tokens: tokens the policy generated while training (RL rollouts; 0 for methods that sample "
             "nothing to train); Train s: seconds of the training steps (warm start, evaluations and checkpoints "
             "excluded); Eval tokens: tokens best-of-n sampled to evaluate the split. Compare methods at equal train "
             "tokens (docs/algorithms.md).")


def _key(column: Column) -> str:
    return column.key.removeprefix("cost:")


def cost_columns(frame: pd.DataFrame) -> list[Column]:
    """The cost columns some run of `frame` (aggregate rows of one table) records."""
    ours = frame[frame["source"] == "runs"] if "source" in frame else frame
    return [c for c in COST_COLUMNS if _key(c) in ours and ours[_key(c)].notna().any()]


def cost_cells(group: pd.DataFrame, columns: list[Column]) -> dict[str, Cell]:
    """One row's cost cells (every metric line of a row holds the same per-seed costs)."""
    cells = {}
    for column in columns:
        mean = float(group[_key(column)].iloc[0])
        if math.isfinite(mean):
            n = group["n"].max()
            cells[column.key] = Cell(mean, float(group[f"{_key(column)}_std"].iloc[0]),
                                     int(n) if math.isfinite(n) else None, count=True)
    return cells
