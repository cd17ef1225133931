"""Every GRUE task's mini profile runs end to end (real loader, real metrics) on the tiny local GPT-2, and
its results.json holds the task's metric mix: each metric a number, or named unavailable with a reason."""
from __future__ import annotations

import json
import math

import pytest
import torch

from grue.config import load_config
from grue.results.schema import validate_results
from grue.run.runner import Run
from tasks import get_task

TASKS = ("commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")
# Offline here: SPICE needs Java and its jars, BLEURT / SummaC / the intent classifier are hub models.
UNAVAILABLE_OFFLINE = {"spice", "bleurt", "summaczs", "intent_accuracy"}


def tiny_args(task: str, tiny_model_dirs, tmp_path) -> list[str]:
    return [f"task={task}", "profile=mini", f"model.policy={tiny_model_dirs.policy}", "model.max_prompt_length=48",
            "data.max_train=8", "data.max_val=4", "data.max_test=4", "generation.max_new_tokens=6",
            "rollout.max_new_tokens=6", "generation.min_new_tokens=2", "rollout.min_new_tokens=2",
            "ppo.steps_per_update=24", "ppo.total_steps=48", "ppo.rollout_batch_size=4", "ppo.batch_size=12",
            "eval.batch_size=4", f"output_dir={tmp_path / 'runs'}", "threads=1"]


def run(args: list[str]) -> dict:
    path = Run(load_config(args), args).execute()
    return json.loads((path / "results.json").read_text())


@pytest.mark.parametrize("task", TASKS)
def test_zero_shot_mini_run_reports_the_whole_metric_mix(task, tiny_model_dirs, tmp_path):
    doc = run([*tiny_args(task, tiny_model_dirs, tmp_path), "algo=zero_shot"])
    assert validate_results(doc) == []
    spec = get_task(task)
    unavailable = set(doc["metrics_unavailable"])
    assert unavailable <= UNAVAILABLE_OFFLINE and unavailable & set(spec.metrics) == unavailable
    for split in ("val", "test"):
        scored = doc["metrics"][split]
        assert set(scored) == set(spec.metrics) - unavailable  # nothing missing, nothing scored as a fake zero
        assert all(math.isfinite(v) for v in scored.values())
    hidden = spec.test_references_hidden
    assert doc["splits"]["test"]["source"] == ("validation" if hidden else "test")
    assert doc["splits"]["test"]["n_samples"] == 4


@pytest.mark.parametrize("task", ["commongen", "dailydialog"])
def test_rl_mini_run_trains_against_the_offline_meteor_reward(task, tiny_model_dirs, tmp_path):
    """The run trains (every iteration takes its optimizer steps and the saved policy moved) against the
    offline METEOR reward. A random tiny GPT-2 scores METEOR ~0, so no rise is visible in seconds; that
    PPO raises a reward is tests/train/rl/test_learning.py's job."""
    args = [*tiny_args(task, tiny_model_dirs, tmp_path), "algo=ppo"]
    doc = run(args)
    assert doc["reward"] == load_config([f"task={task}", "profile=mini", "algo=ppo"]).reward.name == "meteor"
    assert validate_results(doc) == []
    path = Run(load_config(args), args).dir.path
    log = [json.loads(line) for line in (path / "logs" / "train.jsonl").open()]
    assert [r["iteration"] for r in log] == [1, 2] and all(r["optimizer_steps"] > 0 for r in log)
    from transformers import AutoModelForCausalLM

    before = AutoModelForCausalLM.from_pretrained(tiny_model_dirs.policy).state_dict()
    after = AutoModelForCausalLM.from_pretrained(path / "model").state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
