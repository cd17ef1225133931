"""What every side of the benchmark shares: the setting, the prompts file, and one result line.

Imported by scripts that run under grue's environment and under the TRL environments alike, so it
needs nothing beyond the standard library.
"""
from __future__ import annotations

import json
import os
import resource
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

# The setting of docs/speed.md ("Training speed against TRL"): 16 prompts x 48 sampled tokens, top-k 0, no early EOS,
# one PPO epoch in minibatches of 8 episodes, 2 threads, one warm-up iteration.
PROMPTS = 16
NEW_TOKENS = 48
MINIBATCH_EPISODES = 8
THREADS = int(os.environ.get("BENCH_THREADS", "2"))  # scripts/bench_vs_trl.py --threads sets it for every side
PROMPT_TOKENS = 13


@dataclass
class Iteration:
    rollout_s: float
    update_s: float

    @property
    def total_s(self) -> float:
        return self.rollout_s + self.update_s


def read_prompts(path: str) -> list[list[int]]:
    """Token ids of the prompts, identical on every side (written by scripts/bench/prompts.py)."""
    ids = json.loads(Path(path).read_text())["input_ids"]
    assert len(ids) == PROMPTS and all(len(row) == PROMPT_TOKENS for row in ids), "stale prompts file"
    return ids


def report(side: str, measured: list[Iteration]) -> None:
    """One JSON line on stdout: median phase times over the measured iterations and peak RSS."""
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    line = {"side": side, "iterations": len(measured),
            "total_s": statistics.median(i.total_s for i in measured),
            "rollout_s": statistics.median(i.rollout_s for i in measured),
            "update_s": statistics.median(i.update_s for i in measured),
            "peak_rss_mib": round(peak_mib)}
    print("BENCH " + json.dumps(line))
    sys.stdout.flush()
