"""The board's summary tables as format-neutral Tables: overall board, selection, tests, questions.

Markdown, LaTeX and HTML all render these, so every format shows the same rows and numbers.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.build import Board
from grue.board.table import Cell, Column, Row, Table
from grue.board.task_tables import algo_label, algo_rank

TASK_SHORT: dict[str, str] = {"imdb": "IMDB", "commongen": "CommonGen", "cnn_dailymail": "CNN/DM", "totto": "ToTTo",
                              "wmt16": "WMT16", "narrativeqa": "NarrQA", "dailydialog": "DailyDialog"}


def _num(x: float) -> Cell | str:
    return Cell(float(x)) if x is not None and isinstance(x, (int, float)) and math.isfinite(x) else ""


def overall_tables(board: Board) -> list[Table]:
    """One overall table per (source, profile) pool: algorithms x tasks, task and naturalness scores."""
    tables = []
    if board.overall.empty:
        return tables
    tasks = board.tasks
    for (source, profile), frame in board.overall.groupby(["source", "profile"], sort=False):
        present = [t for t in tasks if frame[f"{t}:task"].notna().any() or frame[f"{t}:naturalness"].notna().any()]
        columns = []
        for t in present:
            columns += [Column(f"{t}:task", f"{TASK_SHORT[t]} task", True),
                        Column(f"{t}:naturalness", f"{TASK_SHORT[t]} nat.", True)]
        columns += [Column("task_score", "Task score", True), Column("naturalness_score", "Naturalness", True),
                    Column("grue_score", "GRUE score", True), Column("mean_win_rate", "Mean win rate", True)]
        reference = source != "runs"
        title = (f"Paper (published numbers, scored by grue) — profile {profile}" if reference
                 else f"Overall board — profile {profile}")
        table = Table(title, [Column("algo", "Algorithm"), Column("tasks", "Tasks")], columns,
                      anchor=f"overall-{source}-{profile}")
        for record in frame.to_dict(orient="records"):
            labels = {"algo": algo_label(record["algo"]), "tasks": f"{record['tasks']}/{record['tasks_in_pool']}"}
            cells = {c.key: _num(record[c.key]) for c in columns}
            table.rows.append(Row(labels, cells, reference=reference))
        if not reference:
            table.mark_best()
        table.notes.append("Scores in [0, 1], 1 = best, after the direction-aware normalisation in docs/leaderboard.md "
                           f"({board.options.normalisation}); GRUE score = mean over covered tasks of (task + naturalness) / 2; "
                           "mean win rate = HELM-style share of other rows beaten per Table 1 metric.")
        if any(r["tasks"] < r["tasks_in_pool"] for r in frame.to_dict(orient="records")):
            table.notes.append("A row covering fewer tasks than its pool averages over fewer tasks; compare it per task.")
        tables.append(table)
    return tables


def selection_table(board: Board) -> Table:
    """Which reward / init model stands for each algorithm on each task, chosen on validation."""
    table = Table("Selection by validation score", [Column("source", "Source"), Column("profile", "Profile"),
                  Column("task", "Task"), Column("algo", "Algorithm"), Column("reward", "Chosen reward"),
                  Column("init_model", "Init model"), Column("selected_on", "Chosen on")],
                  [Column("value", "Val. task score", True), Column("n_candidates", "Candidates", numeric=False),
                   Column("candidates", "All candidates (task score)", numeric=False), Column("note", "Note", numeric=False)], anchor="selection")
    ordered = board.selection.assign(_rank=board.selection["algo"].map(algo_rank))
    for r in ordered.sort_values(["source", "profile", "task", "_rank"], ascending=[False, True, True, True]).to_dict("records"):
        labels = {k: str(r[k]) for k in ("source", "profile", "task", "reward", "init_model", "selected_on")}
        labels["algo"] = algo_label(r["algo"])
        cells = {"value": _num(r["value"]), "n_candidates": str(r["n_candidates"]), "candidates": r["candidates"],
                 "note": r["note"]}
        table.rows.append(Row(labels, cells, reference=r["source"] != "runs"))
    table.notes.append(f"Strategy: {board.options.rewards}. The criterion is the validation task score; "
                       "ties are broken by naturalness.")
    return table


def _p(x: float) -> str:
    return "–" if x is None or not math.isfinite(x) else (f"{x:.3g}" if x >= 1e-4 else "<1e-4")


def tests_table(tests: pd.DataFrame, title: str = "Pairwise Welch tests (Holm-corrected per task and measure)") -> Table:
    table = Table(title, [Column("task", "Task"), Column("profile", "Profile"), Column("measure", "Measure"),
                          Column("a", "A"), Column("b", "B")],
                  [Column("mean_a", "Mean A"), Column("mean_b", "Mean B"), Column("diff", "A − B"),
                   Column("n", "Seeds A/B", numeric=False), Column("t", "t"), Column("p", "p"), Column("p_holm", "Holm p"),
                   Column("verdict", "Verdict", numeric=False)], anchor="tests")
    for r in tests.to_dict("records"):
        labels = {"task": r["task"], "profile": r["profile"], "measure": r["measure"],
                  "a": algo_label(r["a"]), "b": algo_label(r["b"])}
        cells = {"mean_a": _num(r["mean_a"]), "mean_b": _num(r["mean_b"]), "diff": _num(r["diff"]),
                 "n": f"{r['n_a']}/{r['n_b']}", "t": _num(r["t"]), "p": _p(r["p"]), "p_holm": _p(r["p_holm"]),
                 "verdict": r["verdict"]}
        table.rows.append(Row(labels, cells))
    return table


def _mark(value: object) -> str:
    return {True: "✓", False: "✗"}.get(value, "–")


def questions_table(board: Board) -> Table:
    """The paper's Table 2, answered from the runs; the paper's answer beside ours."""
    table = Table("Table 2 questions, answered from these runs", [Column("task", "Task"), Column("profile", "Profile"),
                  Column("question", "Question")], [Column("answer", "Our answer", numeric=False), Column("paper", "Paper", numeric=False),
                  Column("detail", "Why", numeric=False), Column("evidence", "Evidence", numeric=False)], anchor="questions")
    for r in board.questions.to_dict("records"):
        cells = {"answer": r["answer"], "paper": _mark(r["paper_answer"]), "detail": r["detail"], "evidence": r["evidence"]}
        table.rows.append(Row({"task": r["task"], "profile": r["profile"], "question": r["question"]}, cells))
    table.notes.append("'yes' = at least one comparison significant at 0.05 after Holm over the task's tests, none reversed; "
                       "fewer than two seeds per side is 'not testable'. Paper: ✓/✗ from its Table 2, – = no human study.")
    return table
