"""The static leaderboard site: an overall page and one page per task, readable offline.

index.html: the overall boards (ours and the paper's, scored alike), Figure 2 bars, the Table 2
answers, the selection report and every skipped run. task-<name>.html: every metric on every split
beside the paper's rows, learning curves, the label-budget curve of learned rewards and its arms' reward
against KL, checkpoint choice, pairwise tests, questions and sample
generations side by side. Only relative links, one local stylesheet and one local script.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from grue.board.build import Board
from grue.board.numbers.curves import checkpoint_report, eval_frame, train_frame
from grue.board.render.files import write_bytes, write_text
from grue.board.render.html_assets import CSS, JS
from grue.board.render.html import SCRIPT, STYLESHEET, esc, page, table_html
from grue.board.numbers.label_budget import budget_points, oracle_metric, reference_levels
from grue.board.numbers.reward_kl import reward_kl_arms
from grue.board.render.plots import budget_figure, curves_figure, figure2, reward_kl_figure
from grue.board.numbers.samples import side_by_side
from grue.board.tables.table import Cell, Column, Row, Table
from grue.board.tables.reward_kl_table import reward_kl_table
from grue.board.task_info import task_short
from grue.board.tables.task_tables import algo_label, splits_of, task_table
from grue.board.tables.differences_table import differences_table
from grue.board.tables.provenance_table import provenance_table
from grue.board.tables.views import (naturalness_note, overall_tables, questions_table, selection_table,
                              tests_table)

TITLE = "GRUE leaderboard"


def _nav(board: Board) -> list[tuple[str, str]]:
    human = [("Human studies", "human.html")] if board.options.studies else []
    return [("Overview", "index.html")] + [(task_short(t), f"task-{t}.html") for t in board.tasks] + human


def _skipped_html(board: Board) -> str:
    if not board.found.skipped:
        return '<p class="note">No run was skipped.</p>'
    items = "".join(f"<li><code>{esc(s.path)}</code>: {esc('; '.join(s.reasons))}</li>" for s in board.found.skipped)
    return (f'<div class="warn" id="skipped"><b>{len(board.found.skipped)} run(s) skipped</b> '
            f"(invalid or unfinished, not counted):<ul>{items}</ul></div>")


def _figure2_html(board: Board, out: Path) -> str:
    if board.overall.empty:
        return '<p class="note">No finished runs yet: nothing to plot.</p>'
    parts = []
    for (source, profile), frame in board.overall.groupby(["source", "profile"], sort=False):
        tasks = [t for t in board.tasks if f"{t}:task" in frame and frame[f"{t}:task"].notna().any()]
        if not tasks:
            continue
        name = f"fig2-{source}-{profile}.png"
        title = f"{'Paper (published numbers)' if source != 'runs' else 'Our runs'} — profile {profile}"
        write_bytes(out / name, figure2(frame, tasks, title))
        parts.append(f'<img class="plot" src="{name}" alt="Figure 2 style bars: {esc(title)}">')
        note = naturalness_note(board, source, profile, tasks)
        if note:
            parts.append(f'<p class="note">{esc(note)}</p>')
    return "\n".join(parts)


def _index(board: Board, out: Path) -> str:
    counted = len(board.found.runs)
    intro = (f"<p>{counted} run(s) counted from {esc(', '.join(str(d) for d in board.run_dirs))}. "
             + " ".join(esc(n[0].upper() + n[1:]) + "." for n in board.notes) + " Formulas: <code>docs/leaderboard.md</code>.</p>")
    content = [intro, _skipped_html(board), "<h2>Overall</h2>"]
    content += [table_html(t) for t in overall_tables(board)]
    content += ["<h2>Figure 2 view</h2>", _figure2_html(board, out)]
    if not board.questions.empty:
        content += ["<h2>Key questions (paper Table 2)</h2>", table_html(questions_table(board))]
    content += ["<h2>Selection</h2>", table_html(selection_table(board))]
    made_by = provenance_table(board)
    if made_by.rows:
        content += ["<h2>Code versions</h2>", table_html(made_by)]
    return page(TITLE, "Overall board", _nav(board), "index.html", "\n".join(content))


def _split_sources(board: Board, task: str) -> str:
    sources = {}
    for run in board.found.runs:
        if run.task == task:
            for split, info in (run.doc.get("splits") or {}).items():
                if isinstance(info, dict) and info.get("source"):
                    sources.setdefault(split, set()).add(str(info["source"]))
    if not sources:
        return ""
    text = "; ".join(f"{s} = {', '.join(sorted(v))}" for s, v in sorted(sources.items()))
    warn = " (test references are hidden for this task: the test column is validation data)" \
        if any(s == "test" and "validation" in v for s, v in sources.items()) else ""
    return f'<p class="note">What each split really is: {esc(text)}{esc(warn)}.</p>'


def _checkpoints_table(report: pd.DataFrame) -> Table:
    """One line per entry: where the validation curve peaked per seed, beside what was reported."""
    table = Table("Checkpoint choice (validation curve)", [Column("algo", "Algorithm"), Column("reward", "Reward"),
                  Column("setting_label", "Setting"), Column("metric", "Judged by"), Column("seeds", "Seeds")],
                  [Column("last", "Last iteration"), Column("last_value", "Last value (mean)"),
                   Column("best", "Best iteration per seed", numeric=False), Column("best_value", "Best value (mean)"),
                   Column("reported", "results.json reports", numeric=False)], anchor="checkpoints")
    for (algo, reward, setting, metric), group in report.groupby(["algo", "reward", "setting_label", "metric"], sort=False):
        table.rows.append(Row({"algo": algo_label(algo), "reward": reward, "setting_label": setting, "metric": metric,
                               "seeds": str(len(group))},
                              {"last": ", ".join(sorted({str(v) for v in group["last_iteration"]})),
                               "last_value": Cell(float(group["last_value"].mean())),
                               "best": ", ".join(str(v) for v in group["best_iteration"]),
                               "best_value": Cell(float(group["best_value"].mean())),
                               "reported": "; ".join(sorted(set(group["reported"])))}))
    for r in report[~report["agrees"].astype(bool)].itertuples():
        table.notes.append(f"⚠ {r.run_dir}: results.json reports val {r.metric} = {r.results_value:.6g}, but the eval "
                           f"log's last value (iteration {r.last_iteration}) is {r.last_value:.6g}; the table uses results.json.")
    return table


def _samples_html(board: Board, task: str, limit: int) -> str:
    parts = []
    for profile in sorted({r.profile for r in board.found.runs if r.task == task}):
        samples = side_by_side(board.found.runs, board.selection, task, profile, limit)
        if not samples:
            continue
        parts.append(f"<h3>Sample generations — profile {esc(profile)} (validation, lowest seed)</h3><div class=\"samples\">")
        for s in samples:
            gens = "".join(
                f'<div class="gen"><b>{esc(algo_label(a))}</b>{esc(g)}<div class="scores">'
                f'{esc(", ".join(f"{k}={v:.3g}" for k, v in sc.items()))}</div></div>' for a, (g, sc) in s.generations.items())
            refs = f'<div class="note">references: {esc(" | ".join(s.references))}</div>' if s.references else ""
            parts.append(f'<div class="sample"><div class="prompt"><b>{esc(s.id)}</b> {esc(s.prompt)}</div>{refs}'
                         f'<div class="gens">{gens}</div></div>')
        parts.append("</div>")
    return "\n".join(parts)


def _curves_html(board: Board, task: str, out: Path) -> str:
    runs = [r for r in board.found.runs if r.task == task]
    parts = []
    for profile in sorted({r.profile for r in runs}):
        mine = [r for r in runs if r.profile == profile]
        train, evals = train_frame(mine), eval_frame(mine)
        keys = ["algo", "reward", "setting_label"]
        train_b = pd.DataFrame(columns=keys + ["tokens", "mean", "std"])
        if not train.empty and train["reward_mean"].notna().any():
            train_b = train.groupby(keys + ["iteration"], sort=True).agg(
                tokens=("steps", "mean"), mean=("reward_mean", "mean"), std=("reward_mean", "std")).reset_index()
            if not (train_b["tokens"] > 0).any():  # no token counts logged: fall back to iterations
                train_b["tokens"] = train_b["iteration"]
        evals = evals[evals["split"] == "val"]
        eval_b = evals.groupby(keys + ["metric", "iteration"], sort=True)["value"].agg(["mean", "std"]).reset_index()
        png = curves_figure(train_b, eval_b, task)
        if png is None:
            continue
        name = f"curves-{task}-{profile}.png"
        write_bytes(out / name, png)
        parts.append(f'<h3>Learning curves — profile {esc(profile)}</h3><img class="plot" src="{name}" '
                     f'alt="learning curves for {esc(task)}: mean over seeds, shaded ±1 std">')
        report = checkpoint_report(mine)
        if not report.empty:
            parts.append(table_html(_checkpoints_table(report), "h3"))
    return "\n".join(parts) or '<p class="note">No training logs found for this task.</p>'


def _budget_html(board: Board, task: str, out: Path) -> str:
    """The label-budget curve, when the task has runs on learned rewards (grue.board.numbers.label_budget)."""
    split = board.options.split
    points = budget_points(board.found.runs, task, split)
    if points.empty:
        return ""
    levels = reference_levels(board.found.runs, task, split, sorted(set(points["profile"])))
    parts = ["<h2>Label budget</h2>", '<p class="note">RL against reward models learned from comparisons: the '
             "oracle metric against the comparisons labelled, beside zero-shot and RL on the oracle itself "
             "(dashed). Mean ± 1 std over seeds.</p>"]
    for profile in sorted(set(points["profile"])):
        png = budget_figure(points[points["profile"] == profile], levels[levels["profile"] == profile],
                            oracle_metric(task), split)
        if png is None:
            continue
        name = f"budget-{task}-{profile}.png"
        write_bytes(out / name, png)
        parts.append(f'<h3>Profile {esc(profile)}</h3><img class="plot" src="{name}" '
                     f'alt="label budget curve for {esc(task)}: {esc(split)} {esc(oracle_metric(task))} against comparisons">')
    parts.append(_reward_kl_html(board, task, out))
    return "\n".join(parts)


def _reward_kl_html(board: Board, task: str, out: Path) -> str:
    """The label-budget arms at their KL: a figure and a table per profile (grue.board.numbers.reward_kl)."""
    split, metric = board.options.split, oracle_metric(task)
    arms = reward_kl_arms(board.found.runs, task, split)
    parts = []
    for profile in sorted(set(arms["profile"])):
        mine = arms[arms["profile"] == profile]
        parts.append(table_html(reward_kl_table(mine, metric, split, profile), "h3"))
        png = reward_kl_figure(mine, metric, split)
        if png is not None:
            name = f"reward-kl-{task}-{profile}.png"
            write_bytes(out / name, png)
            parts.append(f'<img class="plot" src="{name}" alt="{esc(split)} {esc(metric)} of each label-budget arm '
                         f'against its KL per episode at the end of RL, profile {esc(profile)}">')
    return "\n".join(parts)


def _task_page(board: Board, task: str, out: Path, sample_limit: int) -> str:
    content = [f"<h2>Metrics</h2>{_split_sources(board, task)}"]
    content += [table_html(task_table(board.agg, task, split, board.options.with_paper)) for split in splits_of(board.agg, task)]
    differing = differences_table(board, task)  # each RL row against its PPO row (tables/differences_table.py)
    content += [table_html(differing, "h3")] if differing.rows else []
    content += ["<h2>Learning curves</h2>", _curves_html(board, task, out)]
    content += [_budget_html(board, task, out)]
    tests = board.tests[board.tests["task"] == task]
    if not tests.empty:
        content += ["<h2>Statistics</h2>", table_html(tests_table(tests), "h3")]
    questions = board.questions[board.questions["task"] == task]
    if not questions.empty:
        view = questions_table(board)
        view.rows = [r for r in view.rows if r.labels["task"] == task]
        content.append(table_html(view, "h3"))
    content += ["<h2>Samples</h2>", _samples_html(board, task, sample_limit) or '<p class="note">No predictions found.</p>']
    return page(f"{TITLE}: {task_short(task)}", f"Task {task}", _nav(board), f"task-{task}.html", "\n".join(content))


def write_site(board: Board, out: Path, sample_limit: int = 6) -> list[Path]:
    """Write the site under `out`; returns the page paths (index first)."""
    out = Path(out)
    write_text(out / STYLESHEET, CSS)
    write_text(out / SCRIPT, JS)
    pages = [write_text(out / "index.html", _index(board, out))]
    for task in board.tasks:
        pages.append(write_text(out / f"task-{task}.html", _task_page(board, task, out, sample_limit)))
    if board.options.studies:  # human results beside the automatic ones (docs/human.md)
        from grue.human.board_panel import HUMAN_PAGE, human_section, write_section

        written = write_section(human_section(board.options.studies, board.options.qualify), out, _nav(board))
        pages += [p for p in written if p.name == HUMAN_PAGE]
    return pages
