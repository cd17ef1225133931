"""The advantage contract (grue/train/rl/trainer.py `advantage_normalisation`): the update trains on what an
algorithm's advantage seam returns, normalised only as the class that defines the seam asks.

The bug it fixes: a plugin subclassing RLTrainer and overriding `advantages` with a mean baseline had its
advantages whitened over the rollout (`ppo.normalise_advantages=rollout`, PPO's default), which made the
baseline, and any scale of its own, a no-op. The built-in methods keep exactly what they did.
"""
from __future__ import annotations

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import run_schema
from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.registry import algorithm_names, get_algorithm
from grue.train.rl.rollout import Experience
from grue.train.rl.trainer import RLTrainer

L = 6


class MeanBaselineTrainer(RLTrainer):
    """The shape of a plugin that overrides RLTrainer's `advantages` (docs/extending.md before issue 42)."""
    uses_critic = False

    def advantages(self, episodes):
        valid = episodes.rollout.valid
        advantages = (episodes.task_reward - episodes.task_reward.mean())[:, None] * valid + 3.0 * valid
        kl = (episodes.rollout.raw_logp - episodes.ref_logp) * valid
        zeros = torch.zeros_like(valid)
        return Experience(episodes.rollout, zeros, advantages, zeros, episodes.task_reward, kl, episodes.generations)


class WhitenedMeanBaselineTrainer(MeanBaselineTrainer):
    advantage_normalisation = "ppo"  # asks for PPO's normalisation of what it returns


class CharLength:
    name = "chars"

    def __call__(self, samples, generations):
        return [float(len(g)) for g in generations]


def trainer_of(trainer_class, policy):
    cfg = OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "algo": "ppo", "seed": 0, "model": {"value_model": "separate"},
        "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": L, "max_new_tokens": L},
        "ppo": {"total_steps": 4 * L, "steps_per_update": 4 * L, "batch_size": 24, "epochs": 1,
                "rollout_batch_size": 4}})
    value = build_value(cfg, policy) if trainer_class.uses_critic else None
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    return trainer_class(cfg, policy, frozen_copy(policy.model), value, CharLength(), samples, Accelerator(cpu=True))


def trained_on(trainer) -> tuple[torch.Tensor, torch.Tensor]:
    """(what the advantage seam returned, what the update trained on) for one rollout."""
    exp = trainer.collect()
    returned = exp.advantages.clone()
    trainer.update(exp)
    return returned, exp.advantages


def test_a_plugin_overriding_advantages_is_trained_on_what_it_returns(tiny_causal_policy):
    assert MeanBaselineTrainer.advantage_normalisation is None
    returned, trained = trained_on(trainer_of(MeanBaselineTrainer, tiny_causal_policy))
    assert torch.equal(trained, returned)


def test_a_plugin_that_asks_for_ppo_s_normalisation_gets_it(tiny_causal_policy):
    returned, trained = trained_on(trainer_of(WhitenedMeanBaselineTrainer, tiny_causal_policy))
    assert not torch.allclose(trained, returned)
    assert abs(trained[trained != 0].mean().item()) < 1e-5  # whitened over the rollout


def test_ppo_still_whitens_its_advantages_over_the_rollout(tiny_causal_policy):
    returned, trained = trained_on(trainer_of(RLTrainer, tiny_causal_policy))
    assert not torch.allclose(trained, returned)


# What each built-in RL method's update does to its advantages: PPO's normalisation for PPO and NLPO,
# REINFORCE++'s whitening over the global batch, and the group methods' advantages as computed.
BUILT_IN = {"ppo": "ppo", "nlpo": "ppo", "supervised_ppo": "ppo", "supervised_nlpo": "ppo",
            "reinforce_pp": "rollout", "reinforce_pp_baseline": "rollout"}


@pytest.mark.parametrize("algo", [name for name in algorithm_names() if get_algorithm(name).trains == "rl"])
def test_every_built_in_method_keeps_its_normalisation(algo):
    base = algo.removeprefix("supervised_").removesuffix("_mask").removesuffix("_paper")
    want = BUILT_IN.get(algo, BUILT_IN.get(base))
    assert get_algorithm(algo).trainer_class().advantage_normalisation == want


def test_an_unknown_normalisation_is_refused_when_the_class_is_defined():
    with pytest.raises(TypeError, match="advantage_normalisation"):
        type("Odd", (RLTrainer,), {"advantage_normalisation": "episode"})
