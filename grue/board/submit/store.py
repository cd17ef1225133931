"""The board's own record of what `grue leaderboard add` verified: `<board>/.grue-verified/<digest>.json`.

Only what `add` checked counts, so the board reads verification from here, never from a file inside a run
folder (anyone who can write a folder can write a `verification.json` into it). One entry per seed it
accepted, named by the digest of what it checked: the SHA-256 of the run's `results.json` and of each of
its `predictions/*.jsonl`. A run is verified when, and only when, all three hold:

- it sits at `<board>/runs/<name>` of a board that has this store (never deeper: a copy nested inside a
  run folder is not a run of the board);
- the store holds an entry under the digest of the files the run has *now* (an edited results file, an
  edited or added predictions file, gives another digest);
- that entry names this run directory (a verified run copied under another name stays unverified).

A run folder the board did not add (dropped in by hand or by a pull request) is shown unverified. Older
boards, whose runs carry only an in-folder `verification.json`, have no store: their runs show
unverified until the maintainer adds their bundles again (docs/leaderboard.md, section 9).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

from grue.board.submit.manifest import sha256_of
from grue.storage.run_layout import PREDICTIONS, RESULTS, predictions_dir, results_file

STORE = ".grue-verified"
RUNS = "runs"


def checked_files(run_dir: Path) -> dict[str, str]:
    """Name -> SHA-256 of the files verification vouches for: results.json and every predictions file."""
    run_dir = Path(run_dir)
    files = {RESULTS: sha256_of(results_file(run_dir))}  # keys are the names as stored: digests depend on them
    predictions = predictions_dir(run_dir)
    if predictions.is_dir():
        for path in sorted(predictions.iterdir()):
            files[f"{PREDICTIONS}/{path.name}"] = sha256_of(path) if path.is_file() else "not a file"
    return files


def digest_of(files: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(files), sort_keys=True).encode()).hexdigest()


def board_of(run_dir: Path) -> Path | None:
    """The board whose runs folder holds `run_dir` directly, when that board keeps a store."""
    run_dir = Path(run_dir)
    board = run_dir.parent.parent
    return board if run_dir.parent.name == RUNS and (board / STORE).is_dir() else None


def write_entry(board: Path, run_dir: Path, name: str, record: Mapping[str, Any]) -> Path:
    """Record that `add` verified the run now at `run_dir`, to be placed as `<board>/runs/<name>`."""
    from grue.storage.atomic import atomic_write_json

    files = checked_files(run_dir)
    entry = {**record, "run": name, "files": files}
    path = Path(board) / STORE / f"{digest_of(files)}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_json(path, entry)
    return path


def verified_record(run_dir: Path) -> dict[str, Any] | None:
    """The board's entry for this run as it is now, or None (not verified)."""
    run_dir = Path(run_dir)
    board = board_of(run_dir)
    if board is None:
        return None
    try:
        files = checked_files(run_dir)
        entry = json.loads((board / STORE / f"{digest_of(files)}.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("run") != run_dir.name or entry.get("files") != files:
        return None
    return entry
