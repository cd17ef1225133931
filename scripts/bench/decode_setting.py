"""The decode benchmarks' shared setting (scripts/bench_decode_parts.py, scripts/bench_compiled_decode.py):
the packaged SmolLM2-135M on mini-IMDB's val prompts, sampling exactly `tokens` new tokens with the mini PPO
preset's rollout settings."""
from __future__ import annotations

from typing import Any

from grue.config import load_config
from grue.policy.load import load_policy
from tasks import get_task


def smollm2_imdb(tokens: int) -> tuple[Any, Any, list]:
    """(config, policy on the CPU, IMDB mini val samples) for decodes of exactly `tokens` tokens."""
    cfg = load_config(["task=imdb", "profile=mini", "algo=ppo", f"rollout.min_new_tokens={tokens}",
                       f"rollout.max_new_tokens={tokens}"])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    return cfg, policy, get_task("imdb").loader(cfg)["val"]
