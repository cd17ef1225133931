"""The verification record `grue leaderboard add` makes for each accepted seed.

It says what add checked (each metric re-scored or taken as reported, with the claimed and the
re-scored value), under which tolerance, by which grue, from which bundle (its SHA-256), and the
SHA-256 of the `results.json` it verified. The board keeps it in its own store (store.py), keyed by the
digest of the results and predictions it checked, and reads it only from there: a run is verified while
the files it has match an entry that names it. A copy is written beside the run as `verification.json`
for people reading the folder; the board never takes it as proof (a folder's contents are anyone's).
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from grue.board.submit.manifest import sha256_of

RECORD = "verification.json"
VERIFIED = "verified"


def make_record(seed: Any, verdict: Any, bundle: Path, tolerance: Any, results: Path) -> dict[str, Any]:
    from grue.board.submit.bundle import _version
    from grue.results.writer import _git_commit

    return {"status": VERIFIED, "verified_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "verifier": {"grue": _version("grue"), "git_commit": _git_commit()},
            "bundle": {"file": Path(bundle).name, "sha256": verdict.bundle_sha256, "run": seed.run},
            "tolerance": tolerance.as_dict(), "results_sha256": sha256_of(results), "metrics": seed.metrics,
            "claims": getattr(seed, "claims", {})}


def read_record(run_dir: Path) -> dict[str, Any] | None:
    """The board's own record for the run as it is now (store.py), or None: never the in-folder copy."""
    from grue.board.submit.store import verified_record

    record = verified_record(Path(run_dir))
    return record if record is not None and record.get("status") == VERIFIED else None


def is_verified(run_dir: Path) -> bool:
    """The board's store holds a verification of this run directory's results and predictions as they are now."""
    return read_record(run_dir) is not None
