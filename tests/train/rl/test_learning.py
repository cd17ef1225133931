"""PPO and NLPO must actually learn: on a tiny GPT-2 a simple reward rises within a few iterations."""
import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.nlpo import NLPOTrainer
from grue.train.rl.trainer import RLTrainer


def tiny_cfg(**overrides):
    cfg = OmegaConf.structured(RunConfig)
    base = {
        "seed": 0,
        "model": {"value_model": "separate"},
        "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": 4, "max_new_tokens": 4},
        "ppo": {"learning_rate": 3e-3, "total_steps": 64 * 40, "steps_per_update": 64, "batch_size": 16,
                "epochs": 4, "rollout_batch_size": 16, "gamma": 0.99},
        "kl": {"init_coef": 0.0, "target": None},
        "nlpo": {"top_p": 0.9, "min_tokens_to_keep": 5, "update_every": 2},
    }
    return OmegaConf.merge(cfg, base, overrides)


class TokenCountReward:
    """Reward = share of generated tokens that contain the letter 'e' (decoded text)."""

    name = "e_share"

    def __call__(self, samples, generations):
        return [sum(c == "e" for c in g) / max(1, len(g)) for g in generations]


def mean_reward(trainer, n=3):
    return sum(trainer.step()["reward_mean"] for _ in range(n)) / n


@pytest.mark.parametrize("algo,value_model", [("ppo", "separate"), ("nlpo", "shared")])
def test_rl_raises_a_simple_reward(tiny_causal_policy, algo, value_model):
    cfg = tiny_cfg(model={"value_model": value_model})
    policy = tiny_causal_policy
    torch.manual_seed(0)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    trainer_class = NLPOTrainer if algo == "nlpo" else RLTrainer
    trainer = trainer_class(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                            samples, Accelerator(cpu=True))
    before = mean_reward(trainer)
    for _ in range(12):
        trainer.step()
    after = mean_reward(trainer)
    assert after > before + 0.1, (before, after)


def test_kl_penalty_holds_the_policy_near_the_reference(tiny_causal_policy):
    """With a large constant KL coefficient the policy barely moves; without it, it drifts."""
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in"])]

    def drift(beta):
        policy = tiny_causal_policy
        ref = frozen_copy(policy.model)
        start = {k: v.clone() for k, v in policy.model.state_dict().items()}
        cfg = tiny_cfg(kl={"init_coef": beta, "target": 1.0, "k_beta": 0.0})  # constant beta
        trainer = RLTrainer(cfg, policy, ref, build_value(cfg, policy), TokenCountReward(), samples,
                            Accelerator(cpu=True))
        kls = [trainer.step()["kl"] for _ in range(8)]
        policy.model.load_state_dict(start)
        return sum(kls[-3:]) / 3

    assert drift(5.0) < drift(0.0)


def test_ppo_learns_a_terminal_reward_with_minibatches_smaller_than_an_episode(tiny_causal_policy):
    """The paper presets' regime: PPO minibatches (4 transitions) smaller than one episode (8 tokens) and
    a reward at the last token only. Cut from whole episodes, each minibatch was one episode whose
    advantages were normalised to mean zero, which erased the sequence-level reward (the share of e's
    stayed at its starting level); token-level minibatches with rollout-wide normalisation learn it."""
    cfg = tiny_cfg(rollout={"min_new_tokens": 8, "max_new_tokens": 8},
                   ppo={"learning_rate": 5e-3, "steps_per_update": 128, "batch_size": 4, "epochs": 1,
                        "rollout_batch_size": 32})
    policy = tiny_causal_policy
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    torch.manual_seed(0)
    trainer = RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                        samples, Accelerator(cpu=True))
    rewards = [trainer.step()["reward_mean"] for _ in range(8)]
    before, after = sum(rewards[:2]) / 2, sum(rewards[-2:]) / 2
    assert after > before + 0.04, rewards
