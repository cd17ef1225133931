"""The verification record a board keeps beside each accepted run: `verification.json`.

It says what `grue leaderboard add` checked (each metric re-scored or taken as reported, with the
claimed and the re-scored value), under which tolerance, by which grue, from which bundle (its
SHA-256), and the SHA-256 of the `results.json` it verified. The board marks a run verified only while
that digest still matches: a results file edited after verification loses the mark.
"""
from __future__ import annotations

import datetime as dt
import json
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
    try:
        record = json.loads((Path(run_dir) / RECORD).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def is_verified(run_dir: Path) -> bool:
    """The run holds a verification record for the results.json it has now."""
    record = read_record(run_dir)
    if record is None or record.get("status") != VERIFIED:
        return False
    try:
        return record.get("results_sha256") == sha256_of(Path(run_dir) / "results.json")
    except OSError:
        return False
