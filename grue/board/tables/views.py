"""The board's summary tables as format-neutral Tables: overall board, selection, tests, questions.

Markdown, LaTeX and HTML all render these, so every format shows the same rows and numbers.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.build import Board
from grue.board.numbers.budget import TOKEN_TOLERANCE
from grue.board.numbers.critic_question import QUESTION_ID
from grue.board.numbers.nlpo_binding import binding_note
from grue.board.numbers.selection import rows_to_show
from grue.board.task_info import grue_tasks, naturalness_metrics, task_short
from grue.board.tables.table import Cell, Column, Row, Table
from grue.board.task_info import algo_label, algo_rank
from grue.board.tables.mini_notice import mini_notice



def _num(x: float) -> Cell | str:
    return Cell(float(x)) if x is not None and isinstance(x, (int, float)) and math.isfinite(x) else ""


HEADLINE: list[tuple[str, str]] = [("task_score", "Task score"), ("naturalness_score", "Naturalness"),
                                   ("grue_score", "GRUE score"), ("mean_win_rate", "Mean win rate")]


def _covered(record: dict, measure: str) -> list[str]:
    return [task_short(t) for t in grue_tasks() if math.isfinite(record.get(f"{t}:{measure}", math.nan))]


def _headline_cell(record: dict, key: str) -> Cell | str:
    value = record[key]
    if value is None or not math.isfinite(value):
        return ""
    if key == "mean_win_rate":
        tip = f"HELM mean win rate over {record['win_columns']} (task, Table 1 metric) column(s)"
    else:
        measure = "naturalness" if key == "naturalness_score" else "task"
        tasks = _covered(record, measure)
        tip = f"mean over {len(tasks)} task(s): {', '.join(tasks)}"
    return Cell(float(value), tooltip=tip)


def _task_cell(board: Board, record: dict, task: str, measure: str) -> Cell | str:
    value = record[f"{task}:{measure}"]
    if value is None or not math.isfinite(value):
        return ""
    if record["source"] != "runs":
        return Cell(float(value), tooltip="scored from the paper's published means: no per-seed values, no CI")
    spread = board.intervals.get((record["source"], record["profile"], record["algo"], task, measure))
    if spread is None:
        return Cell(float(value), tooltip="score of the averaged candidates (rewards=average): no CI")
    n, low, high = spread
    ci = f"; 95% CI of the per-seed scores [{low:.4g}, {high:.4g}]" if math.isfinite(low) else "; one seed: no CI"
    return Cell(float(value), n=n, ci_low=low, ci_high=high, tooltip=f"n={n} seed(s){ci}")


def _tasks_text(record: dict) -> str:
    text = f"{record['tasks']}/{record['tasks_in_grue']}"
    if record["naturalness_tasks"] != record["tasks"]:
        text += f" (naturalness {record['naturalness_tasks']})"
    return text


def verified_tasks_text(record: dict) -> str:
    """What the board verified of an overall row: on how many of its tasks every seed (and where only some)."""
    full, part, tasks = int(record.get("verified_tasks") or 0), int(record.get("partly_verified_tasks") or 0), record["tasks"]
    if not full and not part:
        return "not verified"
    text = f"✓ {full}/{tasks} task{'s' if tasks != 1 else ''}" if full else ""
    some = f"some seeds on {part} task{'s' if part != 1 else ''}" if part else ""
    return ", ".join(t for t in (text, some) if t)


def _pool_verified(frame: pd.DataFrame) -> bool:
    """Whether a board verified anything in this pool: only then does the overall table say per row."""
    return any(c in frame and bool((frame[c].fillna(0) > 0).any()) for c in ("verified_tasks", "partly_verified_tasks"))


def overall_tables(board: Board) -> list[Table]:
    """One overall table per (source, profile) pool: the headline scores first, then each task's two scores."""
    tables = []
    if board.overall.empty:
        return tables
    for (source, profile), frame in board.overall.groupby(["source", "profile"], sort=False):
        present = [t for t in board.tasks if f"{t}:task" in frame
                   and (frame[f"{t}:task"].notna().any() or frame[f"{t}:naturalness"].notna().any())]
        columns = [Column(key, label, True) for key, label in HEADLINE]
        for t in present:
            columns += [Column(f"{t}:task", f"{task_short(t)} task", True),
                        Column(f"{t}:naturalness", f"{task_short(t)} nat.", True)]
        reference = source != "runs"
        title = (f"Paper (published numbers, scored by grue) — profile {profile}" if reference
                 else f"Overall board — profile {profile}")
        verified = not reference and _pool_verified(frame)
        keys = [Column("algo", "Algorithm"), Column("tasks", "Tasks")] + ([Column("verified", "Verified")] if verified else [])
        table = Table(title, keys, columns, anchor=f"overall-{source}-{profile}")
        records = frame.to_dict(orient="records")
        for record in records:
            cells = {key: _headline_cell(record, key) for key, _ in HEADLINE}
            for t in present:
                cells.update({f"{t}:{m}": _task_cell(board, record, t, m) for m in ("task", "naturalness")})
            named = {"algo": algo_label(record["algo"]), "tasks": _tasks_text(record)}
            if verified:
                named["verified"] = verified_tasks_text(record)
            table.rows.append(Row(named, cells, reference=reference))
        if not reference:
            table.mark_best()
        table.notes.append("Scores in [0, 1], 1 = best, after the direction-aware normalisation in docs/leaderboard.md "
                           f"({board.options.normalisation}); GRUE score = mean over covered tasks of (task + naturalness) / 2; "
                           "mean win rate = HELM-style share of other rows beaten per Table 1 metric.")
        if any(r["tasks"] < r["tasks_in_grue"] for r in records):
            table.notes.append(f"Tasks k/{records[0]['tasks_in_grue']} counts GRUE's tasks a row covers; a row covering fewer is "
                               "averaged over fewer and ranks below rows covering more: compare it per task.")
        if any(r["naturalness_tasks"] < r["tasks"] for r in records):
            table.notes.append("'(naturalness k)': a naturalness metric was unavailable for some tasks (e.g. offline), "
                               "so Naturalness averages over k tasks only.")
        if verified:
            table.notes.append("Verified: on how many of a row's tasks `grue leaderboard add` verified every seed (its "
                               "predictions re-scored with the board's scorers on the board's data; the task tables say "
                               "what each mark covers); 'not verified': runs the board holds on their folder's word.")
        if profile == "mini" and not reference:
            table.notes.append(mini_notice(present))
        leader = max(records, key=lambda r: r["grue_score"] if math.isfinite(r["grue_score"]) else -math.inf)
        best_natural = max((r["naturalness_score"] for r in records if math.isfinite(r["naturalness_score"])),
                           default=math.nan)
        if (not reference and leader["algo"] == "zero_shot" and len(records) > 1
                and leader["naturalness_score"] == best_natural):
            table.notes.append("Zero-Shot leads here through Naturalness: the untrained model's own fluency scores are "
                               "the best by construction (training moves away from them), and with few tasks the trained "
                               "rows' task-score gain does not outweigh that; read the per-task tables for the gains.")
        if not reference and (board.selection["setting_label"] != "").any():
            table.notes.append("Where an algorithm has several settings, the one with the best validation task score "
                               "stands for it on each task (Selection table).")
        tables.append(table)
    return tables


def selection_table(board: Board) -> Table:
    """Which reward / init model stands for each algorithm on each task, chosen on validation."""
    table = Table("Selection by validation score", [Column("source", "Source"), Column("profile", "Profile"),
                  Column("task", "Task"), Column("algo", "Algorithm"), Column("reward", "Chosen reward"),
                  Column("init_model", "Init model"), Column("setting_label", "Chosen setting"),
                  Column("selected_on", "Chosen on")],
                  [Column("value", "Val. task score", True), Column("n_candidates", "Candidates", numeric=False),
                   Column("candidates", "All candidates (task score)", numeric=False), Column("note", "Note", numeric=False)], anchor="selection")
    shown, left_out = rows_to_show(board.selection)
    ordered = shown.assign(_rank=shown["algo"].map(algo_rank))
    for r in ordered.sort_values(["source", "profile", "task", "_rank"], ascending=[False, True, True, True]).to_dict("records"):
        labels = {k: str(r[k]) for k in ("source", "profile", "task", "reward", "init_model", "setting_label", "selected_on")}
        labels["algo"] = algo_label(r["algo"])
        cells = {"value": _num(r["value"]), "n_candidates": str(r["n_candidates"]), "candidates": r["candidates"],
                 "note": r["note"]}
        table.rows.append(Row(labels, cells, reference=r["source"] != "runs"))
    table.notes.append(f"Strategy: {board.options.rewards}. The criterion is the validation task score; "
                       "ties are broken by naturalness.")
    if left_out:
        table.notes.append(f"{left_out} of the paper's published choices are not listed here (tasks without runs on "
                           "this board, or a single published candidate); the CSV and JSON exports list every row.")
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
    table.notes.append("A measure that no run of a task reports (a task whose naturalness metrics are all unavailable "
                       "here) has no tests.")
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
    if board.questions["question_id"].str.startswith(QUESTION_ID).any():
        table.notes.append("'Is the critic worth its cost?' is today's question, not the paper's, asked once per critic "
                           "PPO's rows record (shared trunk or separate): PPO against each critic-free row within "
                           f"{TOKEN_TOLERANCE:.0%} of its generated tokens and under its regulariser, every comparison "
                           "in the same Holm family; 'yes' = PPO significantly better than every candidate "
                           "(docs/algorithms.md).")
    binding = binding_note(board.found.runs)
    if binding:
        table.notes.append(binding)
    return table


def naturalness_note(board: Board, source: str, profile: str, tasks: list[str]) -> str:
    """How each task's naturalness bar was normalised: values from different transforms are not alike."""
    parts = []
    for task in tasks:
        split = board.splits.get((source, profile, task))
        fit = board.fits.get((source, profile, task, split))
        for metric in naturalness_metrics(task):
            transform = fit.transforms.get(metric) if fit else None
            if transform is None:
                parts.append(f"{task_short(task)} {metric} ({split}): not reported, no bar")
            else:
                forced = f": {transform.forced}" if transform.forced else ""
                parts.append(f"{task_short(task)} {metric} ({split}): {transform.describe}{forced}")
    if not parts:
        return ""
    return ("Naturalness normalisation per task (transforms differ, so bars compare algorithms within a task, "
            "not tasks with each other): " + "; ".join(parts) + ".")
