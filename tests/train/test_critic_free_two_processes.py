"""A critic-free method across 2 real processes (torchrun, gloo, tiny models): each rank samples whole
groups of its own prompts, the global normalisation and the loss weights count both ranks, and the run
completes with one writer and the one-process token budget."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from grue.results.schema import validate_results

REPO = Path(__file__).resolve().parents[2]


def test_a_two_process_reinforce_pp_baseline_run_completes_with_one_writer(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*tiny_imdb_args, "algo=reinforce_pp_baseline", "reinforce_pp_baseline.group_size=2",
            f"output_dir={runs}", "num_processes=2"]
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "PYTHONFAULTHANDLER": "1"}
    proc = subprocess.run([sys.executable, "-m", "cli", "run", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = list(runs.glob("imdb-mini-reinforce_pp_baseline-*"))
    assert validate_results(json.loads((path / "results.json").read_text())) == []
    train = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in train] == [1, 2, 3, 4, 5]
    # 24 tokens = 4 six-token episodes: one prompt's group of 2 on each rank
    assert all(r["tokens"] == 24 and r["episodes"] == 4 for r in train)
    assert all(r["loss/value"] == 0.0 for r in train)
