"""Per-task metric tables: every leaderboard row of a task, every metric, mean ± std over seeds."""
from __future__ import annotations

import pandas as pd

from grue.board.aggregate import ROW_KEYS, report_split
from grue.board.metric_info import metric_order
from grue.board.table import Cell, Column, Row, Table
from grue.results import ALGOS

LABEL_COLUMNS: list[Column] = [
    Column("algo", "Algorithm"), Column("reward", "Reward"), Column("init_model", "Init model"),
    Column("profile", "Profile"), Column("n", "Seeds"),
]
ALGO_LABELS: dict[str, str] = {
    "zero_shot": "Zero-Shot", "supervised": "Supervised", "ppo": "PPO", "nlpo": "NLPO",
    "supervised_ppo": "Supervised+PPO", "supervised_nlpo": "Supervised+NLPO",
}


def algo_rank(algo: str) -> int:
    """The paper's row order: zero-shot, supervised, PPO, NLPO, then the warm-started ones."""
    return ALGOS.index(algo) if algo in ALGOS else len(ALGOS)


def _row_order(frame: pd.DataFrame) -> list[tuple]:
    keys = frame[ROW_KEYS].drop_duplicates().itertuples(index=False, name=None)
    return sorted(keys, key=lambda k: (k[4], algo_rank(k[1]), k[2], k[3]))


def task_table(agg: pd.DataFrame, task: str, split: str | None = None) -> Table:
    """The table for one task on one split (default: test if reported, else validation)."""
    split = split or report_split(agg, task)
    frame = agg[(agg["task"] == task) & (agg["split"] == split)]
    metrics = metric_order(task, set(frame["metric"]))
    directions = frame.drop_duplicates("metric").set_index("metric")["higher_is_better"].to_dict()
    table = Table(
        title=f"{task} ({split} split)",
        label_columns=LABEL_COLUMNS,
        value_columns=[Column(m, m, bool(directions[m])) for m in metrics],
        anchor=f"{task}-{split}",
    )
    by_row = {k: g for k, g in frame.groupby(ROW_KEYS, sort=False)}
    for key in _row_order(frame):
        group = by_row[key].set_index("metric")
        labels = dict(zip(ROW_KEYS, key))
        labels["algo"] = ALGO_LABELS.get(labels["algo"], labels["algo"])
        labels["n"] = str(int(group["n"].max()))
        cells = {m: Cell(float(r["mean"]), float(r["std"]), int(r["n"]), float(r["ci_low"]), float(r["ci_high"]))
                 for m, r in group.iterrows()}
        table.rows.append(Row(labels, cells))
    table.mark_best()
    table.notes.append("mean ± sample std over seeds; bold = best mean among runs; ↑/↓ = direction.")
    return table


def task_tables(agg: pd.DataFrame, split: str | None = None) -> list[Table]:
    """One table per task present, in the GRUE task order."""
    from grue.results import TASKS

    present = set(agg["task"])
    return [task_table(agg, t, split) for t in TASKS if t in present]
