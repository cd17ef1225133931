"""Per-task metric tables: every entry of a task, every metric, mean ± std over seeds.

The user's rows come first; the paper's published rows for the same split follow, marked as
reference rows with their table number, so a reproduction reads against its target line by line.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.aggregate import ROW_KEYS, report_split
from grue.board.metric_info import metric_order
from grue.board.reference import provenance
from grue.board.table import Cell, Column, Row, Table
from grue.results.schema import ALGOS, TASKS

LABEL_COLUMNS: list[Column] = [
    Column("algo", "Algorithm"), Column("reward", "Reward"), Column("init_model", "Init model"),
    Column("profile", "Profile"), Column("n", "Seeds"),
]
ALGO_LABELS: dict[str, str] = {
    "zero_shot": "Zero-Shot", "supervised": "Supervised", "ppo": "PPO", "nlpo": "NLPO",
    "supervised_ppo": "Supervised+PPO", "supervised_nlpo": "Supervised+NLPO", "lead_3": "Lead-3",
}


def algo_rank(algo: str) -> int:
    """The paper's row order: zero-shot, supervised, PPO, NLPO, then the warm-started ones."""
    return ALGOS.index(algo) if algo in ALGOS else len(ALGOS)


def algo_label(algo: str) -> str:
    return ALGO_LABELS.get(algo, algo)


def _source(frame: pd.DataFrame) -> pd.Series:
    return frame["source"] if "source" in frame else pd.Series("runs", index=frame.index)


def _seeds_text(n: float) -> str:
    return str(int(n)) if n is not None and math.isfinite(n) else "?"


def task_table(agg: pd.DataFrame, task: str, split: str | None = None, with_paper: bool = True) -> Table:
    """The table for one task on one split (default: test if our runs report it, else validation)."""
    frame = agg[agg["task"] == task].assign(source=lambda f: _source(f))
    ours = frame[frame["source"] == "runs"]
    split = split or report_split(ours if not ours.empty else frame, task)
    frame = frame[(frame["split"] == split) & ((frame["source"] == "runs") | with_paper)]
    metrics = metric_order(task, set(frame["metric"]))
    directions = frame.drop_duplicates("metric").set_index("metric")["higher_is_better"].to_dict()
    table = Table(title=f"{task} ({split} split)", label_columns=LABEL_COLUMNS,
                  value_columns=[Column(m, m, bool(directions[m])) for m in metrics], anchor=f"{task}-{split}")
    groups = {k: g for k, g in frame.groupby(["source"] + ROW_KEYS, sort=False)}
    order = sorted(groups, key=lambda k: (k[0] != "runs", k[5], algo_rank(k[2]), k[3], k[4]))
    tables_cited = set()
    for key in order:
        group = groups[key].set_index("metric")
        source = key[0]
        labels = dict(zip(ROW_KEYS, key[1:]))
        labels["algo"] = algo_label(labels["algo"])
        labels["n"] = _seeds_text(group["n"].max())
        cells = {m: Cell(float(r["mean"]), float(r["std"]), int(r["n"]) if math.isfinite(r["n"]) else 0,
                         float(r["ci_low"]), float(r["ci_high"])) for m, r in group.iterrows()}
        note = ""
        if source != "runs":
            table_id = str(group["table"].iloc[0]) if "table" in group else ""
            tables_cited.add(table_id)
            labels["profile"] = f"paper T{table_id}"
            note = f"paper Table {table_id}"
        table.rows.append(Row(labels, cells, reference=source != "runs", note=note))
    table.mark_best()
    table.notes.append("mean ± sample std over seeds; bold = best mean among our runs; ↑/↓ = direction.")
    if tables_cited:
        cites = "; ".join(provenance(t) for t in sorted(tables_cited))
        table.notes.append(f"Rows marked paper are the published numbers ({cites}), not runs of ours.")
    return table


def task_tables(agg: pd.DataFrame, split: str | None = None, with_paper: bool = True) -> list[Table]:
    """One table per task present, in the GRUE task order (report split only)."""
    present = set(agg["task"])
    return [task_table(agg, t, split, with_paper) for t in TASKS if t in present]


def splits_of(agg: pd.DataFrame, task: str) -> list[str]:
    """Every split with rows for a task, validation first."""
    return sorted(set(agg.loc[agg["task"] == task, "split"]), key=lambda s: (s != "val", s))
