"""Find every finished run under some directories and keep only the ones the board may count.

The board reads nothing but `results.json` (docs/results_schema.md). A directory with a `run.json`
and no `results.json` is a run still going or one that died: it is listed as skipped, never
counted. A results file that fails `validate_results` is skipped with its problems, so one bad
file never crashes the board nor silently shifts a mean.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from grue.results.schema import validate_results

RESULTS_FILE = "results.json"
RUN_MARKER = "run.json"


@dataclass(frozen=True)
class Run:
    """One finished, valid run: its directory and its parsed results document."""

    path: Path
    doc: dict[str, Any]

    @property
    def task(self) -> str:
        return self.doc["task"]

    @property
    def algo(self) -> str:
        return self.doc["algo"]

    @property
    def profile(self) -> str:
        return self.doc["profile"]

    @property
    def seed(self) -> int:
        return self.doc["seed"]

    @property
    def reward(self) -> str:
        """The optimised reward; '' for algorithms without one, so it can be a grouping key."""
        return self.doc.get("reward") or ""

    @property
    def init_model(self) -> str:
        return self.doc.get("init_model") or ""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """The leaderboard row this run contributes a seed to (profiles never mix)."""
        return (self.task, self.algo, self.reward, self.init_model, self.profile)

    @property
    def higher_is_better(self) -> dict[str, bool]:
        value = self.doc.get("higher_is_better")
        return dict(value) if isinstance(value, dict) else {}

    def metrics(self, split: str) -> dict[str, float]:
        return {k: float(v) for k, v in self.doc["metrics"].get(split, {}).items()}


@dataclass(frozen=True)
class Skipped:
    """A run directory the board refused, and why."""

    path: Path
    reasons: tuple[str, ...]


@dataclass
class Collection:
    """The outcome of a collection: runs to count and runs refused."""

    runs: list[Run] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def _load(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, [f"unreadable results file: {err}"]
    problems = validate_results(doc)
    return (doc if not problems else None), problems


def _unfinished(run_marker: Path) -> Skipped:
    try:
        status = json.loads(run_marker.read_text(encoding="utf-8")).get("status", "unknown")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        status = "unreadable run.json"
    return Skipped(run_marker.parent, (f"unfinished: no {RESULTS_FILE} (status {status})",))


def collect(dirs: Iterable[Path | str]) -> Collection:
    """Collect runs under `dirs` (searched recursively); duplicates of a seed are refused.

    Two results for the same row and seed would count one seed twice and shrink the error bars,
    so only the first (by path order) is kept and the others are listed as skipped.
    """
    found = Collection()
    seen_files: set[Path] = set()
    seen_seeds: dict[tuple, Path] = {}
    for root in (Path(d) for d in dirs):
        if not root.exists():
            found.skipped.append(Skipped(root, ("directory does not exist",)))
            continue
        results = sorted(root.rglob(RESULTS_FILE)) if root.is_dir() else [root]
        for path in results:
            real = path.resolve()
            if real in seen_files:
                continue
            seen_files.add(real)
            doc, problems = _load(path)
            if doc is None:
                found.skipped.append(Skipped(path.parent, tuple(problems)))
                continue
            run = Run(path.parent, doc)
            seed_key = run.key + (run.seed,)
            if seed_key in seen_seeds:
                found.skipped.append(Skipped(run.path, (f"duplicate of seed {run.seed} in {seen_seeds[seed_key]}",)))
                continue
            seen_seeds[seed_key] = run.path
            found.runs.append(run)
        if root.is_dir():
            for marker in sorted(root.rglob(RUN_MARKER)):
                if not (marker.parent / RESULTS_FILE).exists():
                    found.skipped.append(_unfinished(marker))
    return found
