"""`grue leaderboard add`: verify a bundle (verify.py) and, only when it passes, put its seeds on a board.

The bundle is unpacked and checked in a scratch folder outside the board; a refused bundle leaves the
board exactly as it was. An accepted one is copied into `<board>/runs/<run name>/` (the name the
verified config gives, as `grue run` names its directories), each seed with only the files its
manifest lists (layout.py says which a run may have), its verification record entered in the board's
own store (`<board>/.grue-verified/`, store.py: the only place the board reads "verified" from) and a
copy beside it for people (record.py), under a lock (`<board>/.grue-add.lock`) so two additions cannot interleave; each seed appears by one rename, and if
one cannot be placed the ones already placed are taken back.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grue.board.submit.record import RECORD, make_record
from grue.board.submit.store import write_entry
from grue.board.submit.verify import Tolerance, Verdict, verify_bundle
from grue.storage.run_layout import RESULTS, results_file

RUNS = "runs"
LOCK = ".grue-add.lock"       # <board>/: held while seeds are placed
INCOMING = ".grue-incoming"   # <board>/: where seeds are copied before each is renamed into runs/


@dataclass
class Added:
    verdict: Verdict
    problems: list[str] = field(default_factory=list)
    runs: list[Path] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return not self.problems


def _board_problems(verdict: Verdict, runs_dir: Path) -> list[str]:
    """Seeds the board already holds: the same run directory, or the same seed of the same setting."""
    from grue.results.model_card import setting_of

    problems = []
    held: dict[tuple, Path] = {}
    if runs_dir.is_dir():
        for path in sorted(runs_dir.rglob(RESULTS)):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
                held[setting_of(doc) + (doc.get("seed"),)] = path.parent
            except (OSError, ValueError, AttributeError, TypeError):
                continue
    for seed in verdict.seeds:
        if (runs_dir / seed.name).exists():
            problems.append(f"{seed.run}: the board already holds {runs_dir / seed.name}")
            continue
        twin = held.get(setting_of(seed.doc) + (seed.doc["seed"],))
        if twin is not None:
            problems.append(f"{seed.run}: the board already holds seed {seed.doc['seed']} of this setting ({twin})")
    return problems


def _copy_listed(run: str, source: Path, target: Path, files: dict) -> None:
    """The seed's files its manifest lists, and nothing else the scratch folder may hold."""
    for name in sorted(files):
        if name.startswith(f"{run}/"):
            rel = name[len(run) + 1:]
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, target / rel)


def add_bundle(bundle: Path, board: Path, tolerance: Tolerance = Tolerance(), device: str = "cpu") -> Added:
    """Verify `bundle` and, when it passes, add its seeds to `board`'s runs folder."""
    from grue.storage.atomic import atomic_write_json
    from grue.storage.lock import RunLock

    from grue.board.submit.assets import read_board_settings

    runs_dir = Path(board) / RUNS
    settings, problems = read_board_settings(Path(board))
    if problems:
        return Added(Verdict(problems=problems), problems)
    with tempfile.TemporaryDirectory(prefix="grue-bundle-") as scratch:
        verdict = verify_bundle(Path(bundle), Path(scratch) / "bundle", tolerance, device, settings)
        added = Added(verdict, list(verdict.problems))
        if added.problems:
            return added
        added.problems += _board_problems(verdict, runs_dir)
        from grue.board.submit.claims import board_twin_problems, held_runs

        added.problems += board_twin_problems(verdict.seeds, held_runs(runs_dir))  # one seed, one run
        if added.problems:
            return added
        runs_dir.mkdir(parents=True, exist_ok=True)
        incoming_dir = Path(board) / INCOMING
        with RunLock(Path(board) / LOCK):
            added.problems += _board_problems(verdict, runs_dir)  # another addition may have come first
            if added.problems:
                return added
            entries: list[Path] = []
            try:
                for seed in verdict.seeds:
                    incoming = incoming_dir / seed.name
                    shutil.rmtree(incoming, ignore_errors=True)
                    _copy_listed(seed.run, seed.path, incoming, verdict.manifest["files"])
                    record = make_record(seed, verdict, bundle, tolerance, results_file(incoming))
                    atomic_write_json(incoming / RECORD, record)
                    entries.append(write_entry(Path(board), incoming, seed.name, record))
                    incoming.rename(runs_dir / seed.name)
                    added.runs.append(runs_dir / seed.name)
            except BaseException:
                for path in added.runs:
                    shutil.rmtree(path, ignore_errors=True)
                for entry in entries:
                    entry.unlink(missing_ok=True)
                raise
            finally:
                shutil.rmtree(incoming_dir, ignore_errors=True)
    return added
