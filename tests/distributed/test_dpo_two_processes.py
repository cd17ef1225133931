"""DPO with 2 data-parallel processes (`num_processes=2`: torchrun, gloo, CPU, the tiny models) logs the losses
a one-process run logs: each rank scores every other chunk of the reference's log-probs and the ranks sum
them, so whichever rank's block of a batch holds an answer has its values. A rank missing the other's
chunks would score those answers against a reference of 0 and log another loss.

Tolerance 1e-5 on every step's loss and held-out statistics: the ranks' blocks and the averaged gradients
round differently from the one-process batch (float rounding only).
"""
import json
import subprocess
import sys

import pytest

from grue.config import load_config
from grue.run.runner import Run
from tests.distributed.test_two_processes import REPO, env
from tests.train.dpo_fixtures import praise_comparisons

KEYS = ("loss", "accuracy", "margin", "heldout_loss", "heldout_accuracy", "heldout_margin")


def train_log(run_dir):
    return [json.loads(line) for line in (run_dir / "logs" / "train.jsonl").read_text().splitlines()]


def test_a_two_process_dpo_run_logs_the_one_process_losses(tiny_imdb_args, tmp_path):
    comparisons = praise_comparisons(tmp_path / "labels.jsonl", 24, task="imdb")
    args = [*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={comparisons}", "dpo.batch_size=8", "dpo.epochs=2",
            "dpo.learning_rate=1e-3", "dpo.optimizer=adamw", "dpo.warmup_steps=0", "dpo.save_every=100"]
    one = train_log(Run(load_config([*args, f"output_dir={tmp_path / 'one'}"]), args).execute())
    proc = subprocess.run([sys.executable, "-m", "cli", "run", *args, f"output_dir={tmp_path / 'two'}",
                           "num_processes=2"], cwd=REPO, env=env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = list((tmp_path / "two").glob("imdb-mini-dpo-*"))
    two = train_log(path)
    assert [r["step"] for r in two] == [r["step"] for r in one] and len(one) >= 4  # one writer, every step once
    assert one[-1]["loss"] < one[0]["loss"] - 0.05  # the policy moved: later steps compare trained policies
    for a, b in zip(one, two):
        mine = [k for k in KEYS if k in a]
        assert {k: b[k] for k in mine} == pytest.approx({k: a[k] for k in mine}, abs=1e-5), a["step"]
    assert "heldout_loss" in two[-1] and "reference_seconds" in two[0]
