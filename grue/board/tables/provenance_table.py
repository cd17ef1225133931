"""The board's "Code versions" table: which grue commit and which libraries made the runs of each task.

A row groups seeds by config hash, which fixes what a run trains but not the code that trained it. A study run
across sessions (docs/studies/) makes its seeds with several commits, and a fix between two of them (a sampler
that drew another token for the same uniform, say) is part of the row's spread. The referee's question, "was
this row made by one piece of code?", needs the commit and library versions each results.json records, grouped
so it can be read: one line per (task, profile, commit, libraries), with the runs it made, and a note naming
the rows whose seeds span several.
"""
from __future__ import annotations

from collections import defaultdict

from grue.board.build import Board
from grue.board.numbers.collect import Run
from grue.board.tables.retrained_starts import retrained_runs, retrained_starts
from grue.board.tables.table import Cell, Column, Row, Table
from grue.board.task_info import algo_label, algo_rank, ordered_tasks
from grue.results.hardware import hardware_label

LIBRARIES = ("torch", "transformers")  # the libraries whose numerics a run's numbers depend on


def commit_of(run: Run) -> str:
    commit = run.doc.get("git_commit") or ""
    return commit[:8] if commit else "not recorded"


def libraries_of(run: Run) -> str:
    versions = run.doc.get("versions") or {}
    return ", ".join(f"{name} {versions[name]}" for name in LIBRARIES if versions.get(name)) or "not recorded"


def _first_made(runs: list[Run]) -> str:
    return min(str(run.doc.get("created") or "") for run in runs)


def _day(run: Run) -> str:
    return str(run.doc.get("created") or "")[:10]


def provenance_table(board: Board) -> Table:
    """One line per (task, profile, commit, libraries) of the board's runs, oldest first within a task."""
    table = Table("Code versions of the runs",
                  [Column("task", "Task"), Column("profile", "Profile"), Column("commit", "grue commit"),
                   Column("libraries", "Libraries")],
                  [Column("runs", "Runs"), Column("made", "Made", numeric=False),
                   Column("rows", "Rows", numeric=False)], anchor="code-versions")
    groups: dict[tuple[str, str, str, str], list[Run]] = defaultdict(list)
    for run in board.found.runs:
        groups[(run.task, run.profile, commit_of(run), libraries_of(run))].append(run)
    for task in ordered_tasks({key[0] for key in groups}):
        keys = sorted((k for k in groups if k[0] == task), key=lambda k: (k[1], _first_made(groups[k]), k[2]))
        for key in keys:
            runs = groups[key]
            days = sorted(map(_day, runs))
            algos = sorted({run.algo for run in runs}, key=algo_rank)
            table.rows.append(Row({"task": task, "profile": key[1], "commit": key[2], "libraries": key[3]},
                                  {"runs": Cell(float(len(runs)), count=True),
                                   "made": days[0] if days[0] == days[-1] else f"{days[0]} to {days[-1]}",
                                   "rows": ", ".join(algo_label(a) for a in algos)}))
    mixed = mixed_rows(board.found.runs)
    table.notes.append("Each run's results.json records the grue commit (git_commit) and library versions that "
                       "made it; the config hash a row groups seeds by fixes the settings, not the code. "
                       "`git log A..B` lists what changed between two commits of one row.")
    if mixed:
        table.notes.append("Rows whose seeds were made by more than one commit, library version or kind of "
                           "machine (their spread includes any change between them): " + "; ".join(mixed) + ".")
    elif table.rows:
        table.notes.append("Every row's seeds were made by one commit and one set of library versions.")
    stale = stale_rows(board.found.runs)
    if stale:
        from grue.results.revisions import REVISIONS

        named = sorted({n for row in stale for n in row[1]})
        what = " ".join(f"Revision {r.number}: {r.what}." for r in REVISIONS if r.number in named)
        table.notes.append("Rows with seeds made before a fix that changes their algorithm's numbers at the same "
                           "settings (grue/results/revisions.py; `grue sweep ... --remake-stale` makes them with "
                           "today's code): " + "; ".join(text for text, _ in stale) + ". " + what)
    retrained = retrained_runs(board.found.runs)
    if retrained:
        before = retrained_starts(board.found.runs)
        table.notes.append(
            "Runs trained again for their weights (a warm start or a teacher needed them) whose metrics moved; the "
            "board shows the retrained record, the first is kept beside it as results.before_retrain.json: "
            + "; ".join(retrained) + "." + (" Runs that started from or learned from the first weights, before the "
                                            "retrain (a comparison with a run started later includes the difference "
                                            "between the two starts): " + "; ".join(before) + "." if before else ""))
    return table


def stale_rows(runs: list[Run]) -> list[tuple[str, list[int]]]:
    """('task algorithm (n of m seeds before revision r)', the revisions named) for each row group with such seeds."""
    from grue.results.revisions import missed_revisions

    out = []
    for key, group in row_groups(runs):
        missed: dict[int, int] = defaultdict(int)
        unknown = 0
        for run in group:
            revisions, certain = missed_revisions(run.doc, run.algo)
            unknown += bool(revisions) and not certain
            for revision in revisions if certain else ():
                missed[revision.number] += 1
        seeds = len(group)
        parts = [f"{count} of {seeds} seeds before revision {number}" for number, count in sorted(missed.items())]
        if unknown:
            parts.append(f"{unknown} of {seeds} seeds made at a commit this checkout cannot place")
        if parts:
            out.append((f"{key[0]} {algo_label(key[1])} ({', '.join(parts)})", sorted(missed)))
    return out


def mixed_rows(runs: list[Run]) -> list[str]:
    """'task algorithm (n commits[, m library versions][, k kinds of machine: ...])' for each row group whose seeds
    differ in code or in the kind of machine that ran them (grue/results/hardware.py)."""
    out = []
    for key, group in row_groups(runs):
        commits = {commit_of(r) for r in group}
        libraries = {libraries_of(r) for r in group}
        machines = {m for r in group if (m := hardware_label(r.doc.get("hardware")))}  # unrecorded: not counted
        parts = ([f"{len(commits)} commits"] if len(commits) > 1 else []) + \
                ([f"{len(libraries)} library versions"] if len(libraries) > 1 else []) + \
                ([f"{len(machines)} kinds of machine: {'; '.join(sorted(machines))}"] if len(machines) > 1 else [])
        if parts:
            out.append(f"{key[0]} {algo_label(key[1])} ({', '.join(parts)})")
    return out


def row_groups(runs: list[Run]) -> list[tuple[tuple, list[Run]]]:
    """The runs by row group and setting, in the board's order of tasks and algorithms."""
    by_row: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        by_row[(*run.group, run.setting)].append(run)
    tasks = ordered_tasks({key[0] for key in by_row})
    return [(key, by_row[key]) for key in sorted(by_row, key=lambda k: (tasks.index(k[0]), algo_rank(k[1]), k))]
