"""Complete cells made before a fix that changes their numbers, and how `--remake-stale` sets one aside.

A config hash fixes what a run trains, not the code that trained it, so a sweep skips a complete run even when a
numbered revision (grue/results/revisions.py) has since changed what its settings compute. `grue sweep
--remake-stale` makes such cells again. The old run is never deleted: its folder moves into the sweep's books,
`<books>/replaced/<run name>@<commit>`, with its results.json and run.json renamed, because a board collects
every results.json below the folder it is given and the old seed would then count beside the new one (or be
kept in its place, by path order). Only cells whose revision is certain are remade; a run made at a commit this
checkout cannot place is only named.
"""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from grue.results.revisions import Revision, is_commit_id, missed_revisions
from grue.storage.lock import RunBusy
from grue.storage.run_layout import RESULTS, STATUS
from grue.sweep.grid import Cell
from grue.sweep.state import SweepBooks

REPLACED = "replaced"
SET_ASIDE = {RESULTS: "results.replaced.json", STATUS: "run.replaced.json"}  # names no board or sweep reads


@dataclass(frozen=True)
class Staleness:
    revisions: tuple[Revision, ...]
    certain: bool        # False: the run's commit is unknown here, so the revisions are only possibly missed
    commit: str          # the recorded git_commit, for the set-aside folder's name ('' when none)


def staleness(books: SweepBooks, cell: Cell) -> Optional[Staleness]:
    """The revisions a complete cell's run missed, or None when it missed none (or cannot be read)."""
    try:
        doc = json.loads(books.run_dir(cell).results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    revisions, certain = missed_revisions(doc, cell.cfg.algo)
    if not revisions:
        return None
    commit = doc.get("git_commit")
    # a folder name is made of it: only a commit id, never a path a copied-in results file could carry
    return Staleness(tuple(revisions), certain, commit[:7] if is_commit_id(commit) else "")


def describe_staleness(stale: Staleness, remake: bool) -> str:
    """The part of a complete cell's line that says it was made before a revision, and what the sweep does."""
    if not stale.certain:
        return "; made at a commit this checkout cannot place, so whether a later fix changes it is unknown"
    numbers = ", ".join(str(r.number) for r in stale.revisions)
    made = f"made before revision {numbers} (grue/results/revisions.py), which changes its numbers"
    if remake:
        return f"; {made}: remade (the old run moves to the sweep's books, {REPLACED}/)"
    return f"; {made}: --remake-stale makes it again and keeps the old run aside"


def set_aside(books: SweepBooks, cell: Cell, stale: Staleness) -> Path:
    """Move the cell's complete run into the books, out of every board's sight; returns where it went.

    Taken under the run's lock, so a run another process is writing is never moved (RunBusy)."""
    run = books.run_dir(cell)
    base = books.root / REPLACED / f"{run.path.name}@{stale.commit or 'unknown'}"
    target, n = base, 1
    while target.exists():  # a cell remade twice keeps both old runs
        n += 1
        target = base.with_name(f"{base.name}.{n}")
    lock = run.lock()
    lock.acquire(wait=False)
    try:
        if not run.complete():  # made again or removed since the plan was read: nothing to set aside
            raise RunBusy(f"{run.path} changed since the sweep read it")
        target.parent.mkdir(parents=True, exist_ok=True)
        # moved first, renamed after: the cell's own folder never holds a run without its results.json, which a
        # sweep would take for an interrupted run and resume
        shutil.move(str(run.path), str(target))
        for name, renamed in SET_ASIDE.items():
            if (target / name).exists():
                (target / name).rename(target / renamed)
    finally:
        lock.release()
    return target
