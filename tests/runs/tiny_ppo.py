"""A seconds-long IMDB mini PPO run on the tiny local models (tests/conftest.py), for the model-card and
live-tracking tests: two iterations of 24 tokens unless told otherwise, six validation and test prompts."""
from __future__ import annotations

from pathlib import Path

from grue.config import load_config
from grue.run.runner import Run


def tiny_ppo_args(model_dirs, out: Path, seed: int = 0, *extra: str) -> list[str]:
    return ["task=imdb", "profile=mini", "algo=ppo", f"seed={seed}", f"model.policy={model_dirs.policy}",
            f"reward.model={model_dirs.classifier}", "data.max_train=16", "data.max_val=6", "data.max_test=6",
            "rollout.max_new_tokens=6", "rollout.min_new_tokens=6", "generation.max_new_tokens=6",
            "generation.min_new_tokens=6", "ppo.steps_per_update=24", "ppo.total_steps=48", "ppo.rollout_batch_size=4",
            "ppo.batch_size=12", "eval.eval_every=1", "eval.batch_size=6", f"output_dir={out}", "threads=1", *extra]


def run_tiny_ppo(model_dirs, out: Path, seed: int = 0, *extra: str) -> Path:
    args = tiny_ppo_args(model_dirs, out, seed, *extra)
    return Run(load_config(args), args).execute()
