"""Run `grue` as a real subprocess (the way a user, a sweep or SLURM does) and read its run directory."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def grue_env() -> dict[str, str]:
    return {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
            "COLUMNS": "200"}


def grue(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=REPO, env=grue_env(), capture_output=True,
                          text=True, timeout=timeout)


def start_grue(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=REPO, env=grue_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for(predicate, timeout: float = 180, every: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached in time")
        time.sleep(every)


def run_dir(runs: Path, pattern: str) -> Path:
    found = sorted(runs.glob(pattern))
    assert len(found) == 1, found
    return found[0]


def metrics(path: Path) -> dict:
    return json.loads((path / "results.json").read_text())["metrics"]


def train_iterations(path: Path) -> list[int]:
    return [json.loads(l)["iteration"] for l in (path / "logs" / "train.jsonl").read_text().splitlines()]
