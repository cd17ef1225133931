"""A sweep from start to board: expand, look at what is done, preflight, launch, record, export.

Running the same `grue sweep` command again is always safe: complete cells are skipped (their
results.json is the proof), interrupted ones resume from their last checkpoint, failed ones are
reported with their error and only run again with `retry_failed`. A cell that cannot start as set (DPO
without a comparisons file, a task this profile cannot run) is refused before any work, with what it needs,
and the other cells run: the whole grid is one command even while a few of its cells wait on the user.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from grue.storage.lock import RunBusy
from grue.sweep.grid import Cell, expand_union
from grue.sweep.stale import REPLACED, Staleness, describe_staleness, set_aside, staleness
from grue.sweep.state import COMPLETE, FAILED, INTERRUPTED, RUNNING, CellState, SweepBooks
from grue.train.registry import optimises_reward

EXIT_INTERRUPTED = (130, -2, -9, -15, 137, 143)  # Ctrl-C, SIGKILL, SIGTERM (preemption): resumable, not failed


@dataclass
class SweepPlan:
    args: list[str]
    cells: list[Cell]
    books: SweepBooks
    states: dict[str, CellState] = field(default_factory=dict)
    # cell hash -> why it cannot start as set (grue.run.preflight.settings_problems), for cells not complete
    refused: dict[str, list[str]] = field(default_factory=dict)
    # cell hash -> the revisions its complete run was made before (grue.sweep.stale), for complete cells
    stale: dict[str, Staleness] = field(default_factory=dict)

    def remakeable(self, cell: Cell) -> bool:
        """A complete cell that --remake-stale makes again: made, for certain, before a revision that applies."""
        return cell.hash in self.stale and self.stale[cell.hash].certain

    def todo(self, retry_failed: bool, remake_stale: bool = False) -> list[Cell]:
        skip = {COMPLETE} | (set() if retry_failed else {FAILED})
        return [c for c in self.cells if c.hash not in self.refused and
                (self.states[c.hash].status not in skip or (remake_stale and self.remakeable(c)))]


def refusals(cells: Sequence[Cell], states: dict[str, CellState]) -> dict[str, list[str]]:
    """Why each cell not yet complete cannot start, asked of its settings alone (no model, data or metric
    is loaded: a dry run of the whole grid answers in seconds)."""
    from grue.run.preflight import settings_problems

    out = {}
    for cell in cells:
        if states[cell.hash].status != COMPLETE:
            problems = settings_problems(cell.cfg)
            if problems:
                out[cell.hash] = problems
    return out


def plan(args: Sequence[str], grids: Sequence[str] = ()) -> SweepPlan:
    cells = expand_union(args, grids)
    if not cells:
        raise ValueError("the sweep has no cells")
    books = SweepBooks(Path(cells[0].cfg.output_dir), cells)
    records = books.last_records()
    written = [*args, *(f"--grid={grid}" for grid in grids)]  # the sweep's manifest records the whole command
    states = {c.hash: books.state(c, records) for c in cells}
    stale = {c.hash: s for c in cells if states[c.hash].status == COMPLETE and (s := staleness(books, c))}
    return SweepPlan(written, cells, books, states, refusals(cells, states), stale)


def describe(sweep: SweepPlan, retry_failed: bool = False, remake_stale: bool = False) -> list[str]:
    """One line per cell and a summary: what --dry-run prints and what a sweep prints before it starts."""
    lines = []
    for cell in sweep.cells:
        state = sweep.states[cell.hash]
        note = {COMPLETE: "complete (skipped)", FAILED: "failed" + ("; retried" if retry_failed else
                                                                      " (skipped; --retry-failed runs it again)"),
                INTERRUPTED: "interrupted (resumes from its last checkpoint)",
                RUNNING: "running in another process (waits for it)"}.get(state.status, "to run")
        if cell.hash in sweep.refused:
            note = "refused: " + "; ".join(sweep.refused[cell.hash])
        if cell.hash in sweep.stale:
            remade = remake_stale and sweep.remakeable(cell)
            note = ("complete (remade)" if remade else note) + describe_staleness(sweep.stale[cell.hash], remade)
        lines.append(f"{cell.key}  {cell.label:<48} {note}")
        if state.error:
            lines.append(f"{'':14}error: {state.error}")
        if state.log and state.status in (FAILED, INTERRUPTED):
            lines.append(f"{'':14}log: {state.log}")
    counts = {s: sum(1 for st in sweep.states.values() if st.status == s) for s in (COMPLETE, FAILED)}
    todo = len(sweep.todo(retry_failed, remake_stale))
    refused = f", {len(sweep.refused)} refused before any work" if sweep.refused else ""
    lines.append(f"{len(sweep.cells)} cells: {counts[COMPLETE]} complete, {todo} to run{refused}, {counts[FAILED]} "
                 f"failed; books in {sweep.books.root}")
    return lines


def preflight_cells(cells: Sequence[Cell]) -> list[str]:
    """Preflight each distinct set of assets once (metric models load on the CPU, in this process)."""
    from grue.run.preflight import check_all

    seen, distinct = set(), []
    for cell in cells:
        c = cell.cfg
        key = (c.task, c.profile, optimises_reward(c.algo) and c.reward.name,
               c.model.policy, c.model.supervised_init, c.reward.model, c.data.source, c.data.config, c.data.revision,
               tuple(c.eval.metrics), json.dumps(dict(c.eval.metric_options), sort_keys=True, default=str))
        if key not in seen:
            seen.add(key)
            distinct.append(c)
    return check_all(distinct, device="cpu")


def error_of(books: SweepBooks, cell: Cell, code: int) -> str:
    """Why a cell failed: the run's own record (run.json), else the last `error:` line of its log."""
    recorded = books.run_dir(cell).status().get("error")
    if recorded:
        return recorded
    try:
        lines = [l.strip() for l in books.log_path(cell).read_text(encoding="utf-8").splitlines() if l.strip()]
    except OSError:
        lines = []
    errors = [l for l in lines if l.startswith("error:")]
    tail = errors[-1].removeprefix("error:").strip() if errors else (lines[-1] if lines else "")
    return f"exit code {code}" + (f": {tail}" if tail else "")


def execute(sweep: SweepPlan, launcher: Any, retry_failed: bool, echo: Callable[[str], None],
            remake_stale: bool = False) -> dict[str, str]:
    """Run the cells still to do; returns cell hash -> final status (complete, failed or interrupted)."""
    todo = sweep.todo(retry_failed, remake_stale)
    sweep.books.write_manifest(sweep.args)
    outcome: dict[str, str] = {}
    for cell in [c for c in todo if sweep.states[c.hash].status == COMPLETE]:
        try:
            where = set_aside(sweep.books, cell, sweep.stale[cell.hash])
        except RunBusy as err:  # another process holds or changed the run: leave it, say so
            todo.remove(cell)
            echo(f"[sweep] {cell.key} {cell.label}: not remade, {err}")
            continue
        sweep.books.record(cell, REPLACED, None, f"made before revision "
                           f"{', '.join(str(r.number) for r in sweep.stale[cell.hash].revisions)}; old run in {where}")
        echo(f"[sweep] {cell.key} {cell.label}: made before a fix that changes its numbers; the old run is in "
             f"{where}, the cell runs again")

    def done(cell: Cell, code: int) -> None:
        complete = sweep.books.run_dir(cell).complete()
        status = COMPLETE if complete and code == 0 else (INTERRUPTED if code in EXIT_INTERRUPTED else FAILED)
        error = None if status == COMPLETE else error_of(sweep.books, cell, code)
        sweep.books.record(cell, status, code, error)
        outcome[cell.hash] = status
        echo(f"[sweep] {cell.key} {cell.label}: {status}" + (f" - {error}" if error else ""))

    if todo:
        launcher.run(todo, sweep.books.log_path, done)
    return outcome


def export(sweep: SweepPlan, formats: Sequence[str] = ("md", "csv", "json")) -> tuple[Path, str]:
    """The leaderboard of the sweep's complete runs, written under the sweep's books."""
    from grue.board.export import export_tables

    finished = [sweep.books.run_dir(c).path for c in sweep.cells if sweep.books.run_dir(c).complete()]
    out = sweep.books.root / "board"
    return out, export_tables(finished, out, formats)
