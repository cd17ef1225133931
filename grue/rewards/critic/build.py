"""`reward.dense=critic` assembled from the run config: backend, template, cache, weights.

`check_critic_settings` runs when the config is loaded, so a critic that cannot work is refused in
one line before any model is loaded; the factory itself only builds.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from grue.rewards.critic.backend import CriticBackend
from grue.rewards.critic.cache import JudgementCache
from grue.rewards.critic.dense_reward import DenseCriticReward
from grue.rewards.critic.template import template_for_task
from grue.rewards.registry import Reward

BACKENDS = ("local", "http", "self")


def initial_policy_reference(cfg: Any) -> str:
    """Self-critique's critic: the model the policy starts from, loaded again and kept frozen (a
    warm-started run's is its published supervised checkpoint, when one is named)."""
    from grue.train.registry import get_algorithm

    return cfg.model.supervised_init if get_algorithm(cfg.algo).warm_start else cfg.model.policy


def check_critic_settings(cfg: Any) -> None:
    """Raise ValueError with one line saying what to set, when `reward.dense=critic` cannot work."""
    critic = cfg.critic
    if critic.backend == "local" and not critic.model:
        raise ValueError("critic.backend=local needs critic.model (a model reference, e.g. packaged:smollm2-135m)")
    if critic.backend == "http" and not (critic.base_url and critic.model):
        raise ValueError("critic.backend=http needs critic.base_url (the endpoint's /v1 root) and critic.model")
    if critic.backend == "http" and critic.api_key_env and not os.environ.get(critic.api_key_env):
        raise ValueError(f"critic.api_key_env names {critic.api_key_env}, which is not set in the environment")
    if critic.backend == "self" and not initial_policy_reference(cfg):
        raise ValueError(f"critic.backend=self with algo={cfg.algo} needs model.supervised_init: the critic is a "
                         "frozen copy of the model the policy starts from")
    template_for_task(cfg.task, critic.template)  # raises TemplateError (a ValueError) naming the file


def critic_backend(cfg: Any) -> CriticBackend:
    critic = cfg.critic
    if critic.backend == "http":
        from grue.rewards.critic.http_backend import ChatCompletionsCritic

        return ChatCompletionsCritic(critic.base_url, critic.model,
                                     os.environ.get(critic.api_key_env) if critic.api_key_env else None,
                                     critic.concurrency, critic.timeout_s, critic.max_retries, critic.backoff_s,
                                     critic.requests_per_minute, critic.max_new_tokens)
    from grue.rewards.critic.local_backend import LocalLMCritic
    from grue.runtime.process import device_of

    ref = critic.model if critic.backend == "local" else initial_policy_reference(cfg)
    return LocalLMCritic(ref, critic.device or device_of(cfg), critic.batch_size, critic.max_new_tokens)


def dense_critic_reward(cfg: Any, extrinsic: Reward, cache_dir: Path) -> DenseCriticReward:
    """The dense reward around `extrinsic`; the run hands down where its judgements are cached."""
    critic = cfg.critic
    cache = JudgementCache(cache_dir)
    return DenseCriticReward(extrinsic, critic_backend(cfg), template_for_task(cfg.task, critic.template), cache,
                             critic.alpha_extrinsic, critic.alpha_intrinsic, critic.span_reward, critic.score_scale)
