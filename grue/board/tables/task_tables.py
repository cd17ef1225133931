"""Per-task metric tables: every entry of a task, every metric, mean ± std over seeds.

The user's rows come first; the paper's published rows for the same split follow, marked as
reference rows with their table number, so a reproduction reads against its target line by line.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.numbers.aggregate import ROW_KEYS, report_split
from grue.board.metric_info import COUNT_METRICS, direction, metric_labels, metric_order, renamed_note
from grue.board.numbers.reference import HIDDEN_TEST, provenance
from grue.board.tables.cost_columns import COST_NOTE, cost_cells, cost_columns
from grue.board.tables.mini_notice import MINI_NOTICE, mini_notice  # noqa: F401  (re-exported)
from grue.board.tables.fact_columns import FACT_NOTE, comparisons_note, fact_columns, fact_labels, token_note
from grue.board.tables.table import FLAG_MARK, Cell, Column, Row, Table
from grue.board.submit.shown import what_was_checked, with_labels
from grue.board.task_info import algo_label, algo_rank, ordered_tasks, outside_grue_note  # noqa: F401  (re-exported)

LABEL_COLUMNS: list[Column] = [
    Column("algo", "Algorithm"), Column("reward", "Reward"), Column("init_model", "Init model"),
    Column("profile", "Profile"), Column("n", "Seeds"),
]
SETTING_COLUMN = Column("setting_label", "Setting")  # shown only when some algorithm has several settings
VERIFIED_COLUMN = Column("verified", "Verified")  # shown only when a board verified some row's seeds
VERIFIED_NOTE = ("Verified: the seeds' predictions were re-scored by `grue leaderboard add` when the bundle was "
                 "added, and every claimed metric it could re-score agreed within its tolerance (docs/leaderboard.md, "
                 "\"Submitting to a board\").")


def verified_text(verified: float, n: float) -> str:
    """"✓ verified" when every seed of a row was verified, "✓ k/n seeds" when some were, "" otherwise."""
    if verified is None or not math.isfinite(verified) or verified <= 0:
        return ""
    return "✓ verified" if verified >= n else f"✓ {int(verified)}/{int(n)} seeds"


def _source(frame: pd.DataFrame) -> pd.Series:
    return frame["source"] if "source" in frame else pd.Series("runs", index=frame.index)


def _seeds_text(n: float) -> str:
    return str(int(n)) if n is not None and math.isfinite(n) else "?"


def _title(task: str, split: str) -> str:
    if split == HIDDEN_TEST:
        return f"{task} (the paper's official hidden test: published numbers only, a split grue cannot score)"
    return f"{task} ({split} split)"


def _cell(record: pd.Series, metric: str) -> Cell:
    n = int(record["n"]) if math.isfinite(record["n"]) else None
    flag = record.get("flag", "")
    return Cell(float(record["mean"]), float(record["std"]), n, float(record["ci_low"]), float(record["ci_high"]),
                count=metric in COUNT_METRICS, flag=flag if isinstance(flag, str) else "")


def task_table(agg: pd.DataFrame, task: str, split: str | None = None, with_paper: bool = True) -> Table:
    """The table for one task on one split (default: test if our runs report it, else validation)."""
    frame = agg[agg["task"] == task].assign(source=lambda f: _source(f))
    ours = frame[frame["source"] == "runs"]
    split = split or report_split(ours if not ours.empty else frame, task)
    frame = frame[(frame["split"] == split) & ((frame["source"] == "runs") | with_paper)]
    metrics = metric_order(task, set(frame["metric"]))
    declared = frame.drop_duplicates("metric").set_index("metric")["higher_is_better"].to_dict()
    titles = metric_labels(metrics)
    labels = LABEL_COLUMNS + ([SETTING_COLUMN] if (frame["setting_label"] != "").any() else [])
    verified = "verified" in frame and bool((frame["verified"].fillna(0) > 0).any())
    labels += [VERIFIED_COLUMN] if verified else []
    facts = fact_columns(frame)  # each RL row's critic and regulariser (fact_columns.py), after the numbers
    costs = cost_columns(frame)
    table = Table(title=_title(task, split), label_columns=labels,
                  value_columns=[Column(m, titles[m], direction(m, {m: bool(declared[m])})) for m in metrics] + costs + facts,
                  anchor=f"{task}-{split}")
    keys = ["source"] + ROW_KEYS
    groups = {k: g for k, g in frame.groupby(keys, sort=False)}

    def order(key: tuple) -> tuple:
        named = dict(zip(keys, key))
        return (named["source"] != "runs", named["profile"], algo_rank(named["algo"]), named["reward"],
                named["init_model"], named["setting_label"])

    tables_cited = set()
    flags = set()
    for key in sorted(groups, key=order):
        group = groups[key].set_index("metric")
        named = dict(zip(keys, key))
        source = named.pop("source")
        named["algo"] = algo_label(named["algo"])
        named["n"] = _seeds_text(group["n"].max())
        if verified:
            named["verified"] = verified_text(group["verified"].max(), group["n"].max()) if source == "runs" else ""
            named["verified"] = with_labels(named["verified"], group)  # what add found (submit/shown.py)
        cells = {m: _cell(r, m) for m, r in group.iterrows()}
        flags |= {f"{m}: {c.flag}" for m, c in cells.items() if c.flag}
        cells.update(cost_cells(group, costs) if source == "runs" else {})
        cells.update(fact_labels(group, facts, source))
        note = ""
        if source != "runs":
            table_id = str(group["table"].iloc[0]) if "table" in group else ""
            tables_cited.add(table_id)
            named["profile"] = f"paper T{table_id}"
            note = f"paper Table {table_id}"
        table.rows.append(Row(named, cells, reference=source != "runs", note=note))
    table.mark_best()
    table.notes.append("mean ± sample std over seeds; bold = best mean among our runs; ↑/↓ = direction "
                       "(none for a length); unique_n are corpus counts, which grow with the number of samples scored.")
    if (frame.loc[frame["source"] == "runs", "setting_label"] != "").any():
        table.notes.append("Setting: the config keys in which the rows of one algorithm differ; each row averages "
                           "seeds of one setting only, never different settings.")
    if verified:
        table.notes.append(VERIFIED_NOTE)
        table.notes += what_was_checked(frame, lambda r: " ".join(str(v) for v in (algo_label(r["algo"]), r["reward"],
                                                                           r["setting_label"]) if v))
    if costs:
        table.notes.append(COST_NOTE)
    if facts:
        table.notes.append(FACT_NOTE)
    if token_note(frame):
        table.notes.append(token_note(frame))
    comparisons = comparisons_note(frame)
    if comparisons:
        table.notes.append(comparisons)
    if tables_cited:
        cites = "; ".join(provenance(t) for t in sorted(tables_cited))
        table.notes.append(f"Rows marked paper are the published numbers ({cites}), not runs of ours.")
    if renamed_note(titles):
        table.notes.append(renamed_note(titles))
    if (frame.loc[frame["source"] == "runs", "profile"] == "mini").any():
        table.notes.append(mini_notice([task]))
    outside = outside_grue_note(task)
    if outside:
        table.notes.append(outside)
    table.notes += [f"{FLAG_MARK} {f}" for f in sorted(flags)]
    return table


def task_tables(agg: pd.DataFrame, split: str | None = None, with_paper: bool = True) -> list[Table]:
    """One table per task present, in the GRUE task order (report split only)."""
    present = set(agg["task"])
    return [task_table(agg, t, split, with_paper) for t in ordered_tasks(present)]


def splits_of(agg: pd.DataFrame, task: str) -> list[str]:
    """Every split with rows for a task: validation, test, then the paper's hidden test (shown apart)."""
    return sorted(set(agg.loc[agg["task"] == task, "split"]), key=lambda s: (s == HIDDEN_TEST, s != "val", s))
