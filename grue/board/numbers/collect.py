"""Find every finished run under some directories and keep only the ones the board may count.

The board reads nothing but `results.json` (docs/results_schema.md). A directory with a `run.json`
and no `results.json` is a run still going or one that died: it is listed as skipped, never
counted. A results file that fails `validate_results` is skipped with its problems, so one bad
file never crashes the board nor silently shifts a mean. Runs are never nested: a `results.json` inside
another run's folder is skipped (a copy planted there cannot stand in for the run), and of two results
of one seed a verified one is kept over one that is not (`Run.verified`, grue/board/submit/store.py).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

from grue.board.numbers.setting import init_model_name, setting_id, setting_items, setting_labels, telling_keys
from grue.results.schema import validate_results
from grue.run.run_dir import RunDir
from grue.storage.run_layout import RESULTS, STATUS, results_file, status_file


@dataclass(frozen=True)
class Run:
    """One finished, valid run: its directory and its parsed results document."""

    path: Path
    doc: dict[str, Any]
    setting_label: str = ""  # the keys that set it apart from its row group's other settings (collect fills it)

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
        """The same for every seed of a setting (a warm start's own run directory is named by its seed)."""
        return init_model_name(self.doc.get("init_model"))

    @cached_property
    def setting_items(self) -> dict[str, str]:
        return setting_items(self.doc)

    @cached_property
    def verified(self) -> bool:
        """The board's own store holds a verification of this run as it is now (`grue leaderboard add`,
        grue/board/submit/store.py); nothing inside the run folder counts."""
        from grue.board.submit.record import is_verified

        return is_verified(self.path)

    @property
    def setting(self) -> str:
        """The identity of the run's config without its seed (setting.py)."""
        return setting_id(self.setting_items)

    @property
    def group(self) -> tuple[str, str, str, str, str]:
        """What the board names a row by before settings: task, algorithm, reward, init model, profile."""
        return (self.task, self.algo, self.reward, self.init_model, self.profile)

    @property
    def key(self) -> tuple[str, ...]:
        """The leaderboard row this run contributes a seed to: one setting, one profile."""
        return self.group + (self.setting, self.setting_label)

    @property
    def higher_is_better(self) -> dict[str, bool]:
        value = self.doc.get("higher_is_better")
        return dict(value) if isinstance(value, dict) else {}

    def n_samples(self, split: str) -> float:
        """How many samples the split's metrics were computed on (NaN when not recorded)."""
        info = (self.doc.get("splits") or {}).get(split)
        size = info.get("n_samples") if isinstance(info, dict) else None
        return float(size) if isinstance(size, (int, float)) and not isinstance(size, bool) else math.nan

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
    # Row group (task, algo, reward, init model, profile) -> the config keys its settings differ in.
    setting_keys: dict[tuple, list[str]] = field(default_factory=dict)


def _load(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        return None, [f"unreadable results file: {err}"]
    if isinstance(doc, dict) and isinstance(doc.get("config"), dict):
        from tasks import adopt_recorded_task

        try:  # a run of a declarative task file shows without GRUE_TASKS_PATH
            adopt_recorded_task(doc["config"])
        except ValueError as err:
            return None, [f"its task file cannot be read: {err}"]
    problems = validate_results(doc)
    return (doc if not problems else None), problems


def _unfinished(run_marker: Path) -> Skipped:
    """RunDir.status tells a run whose process died (run.json still "running", its lock free) from a live one."""
    status = RunDir(run_marker.parent).status().get("status", "unreadable run.json")
    return Skipped(run_marker.parent, (f"unfinished: no {RESULTS} (status {status})",))


def _label_settings(found: Collection) -> None:
    """Give each run the label that tells its setting from the other settings of its row group."""
    groups: dict[tuple, dict[str, dict[str, str]]] = {}
    for run in found.runs:
        groups.setdefault(run.group, {})[run.setting] = run.setting_items
    labels = {group: setting_labels(settings) for group, settings in groups.items()}
    found.runs = [replace(run, setting_label=labels[run.group][run.setting]) for run in found.runs]
    found.setting_keys = {group: telling_keys(settings.values()) for group, settings in groups.items()
                          if len(settings) > 1}


EVALUATION = "evaluation"  # results.json's `kind` for what `grue eval` writes


def _enclosing_run(path: Path, root: Path) -> Path | None:
    """A folder above `path`'s run folder (up to `root`) that is itself a run (it holds results.json or run.json)."""
    folder = path.parent.parent
    while folder != root.parent and root in (folder, *folder.parents):
        if results_file(folder).is_file() or status_file(folder).is_file():
            return folder
        folder = folder.parent
    return None


def collect(dirs: Iterable[Path | str]) -> Collection:
    """Collect runs under `dirs` (searched recursively); duplicates of a seed are refused.

    Two results of the same setting and seed (the config hash without the seed agrees) would count
    one seed twice and shrink the error bars, so only the first (by path order) is kept and the
    others are listed as skipped. Runs that differ in any setting are never duplicates.
    """
    found = Collection()
    seen_files: set[Path] = set()
    seen_seeds: dict[tuple, Run] = {}
    for root in (Path(d) for d in dirs):
        if not root.exists():
            found.skipped.append(Skipped(root, ("directory does not exist",)))
            continue
        results = sorted(root.rglob(RESULTS)) if root.is_dir() else [root]
        for path in results:
            real = path.resolve()
            if real in seen_files:
                continue
            seen_files.add(real)
            outer = _enclosing_run(path, root) if root.is_dir() else None
            if outer is not None:
                found.skipped.append(Skipped(path.parent, (f"a {RESULTS} inside the run folder {outer}: runs are "
                                                           "never nested, so it is not counted",)))
                continue
            doc, problems = _load(path)
            if doc is None:
                found.skipped.append(Skipped(path.parent, tuple(problems)))
                continue
            if doc.get("kind") == EVALUATION:
                found.skipped.append(Skipped(path.parent, ("an evaluation made by `grue eval` (a check, not a run): "
                                                           "boards count runs; `grue run algo=zero_shot "
                                                           "model.policy=<model>` puts a model on the board",)))
                continue
            run = Run(path.parent, doc)
            seed_key = run.group + (run.setting, run.seed)
            if seed_key in seen_seeds:
                kept = seen_seeds[seed_key]
                if run.verified and not kept.verified:  # a copy never displaces the run the board verified
                    found.runs[found.runs.index(kept)] = run
                    seen_seeds[seed_key], run = run, kept
                found.skipped.append(Skipped(run.path, (f"duplicate of seed {run.seed} in {seen_seeds[seed_key].path} "
                                                        "(same setting: identical config apart from the seed)",)))
                continue
            seen_seeds[seed_key] = run
            found.runs.append(run)
        if root.is_dir():
            for marker in sorted(root.rglob(STATUS)):
                if not results_file(marker.parent).exists():
                    found.skipped.append(_unfinished(marker))
    _label_settings(found)
    return found
