"""The critic-free trainer reads every loss option: each test here fails when the trainer ignores its option
(the update's loss is the one the option defines, not the default's; dropped groups leave the loss; the overlong
penalty reaches the advantages), and DAPO, GSPO and CISPO learn on the tiny "write e's" task as GRPO does."""
from __future__ import annotations

import pytest
import torch

from grue.train.registry import get_algorithm
from grue.train.rl.loss_options import clipped_objective, importance_ratio, weight_clipped_objective
from tests.train.rl.test_critic_free_learning import config, make_trainer

ONE_STEP = {"epochs": 1, "batch_size": 10_000, "minibatch": "episodes"}  # one minibatch holding every episode


def loss_of_one_update(trainer, exp):
    """The update's policy loss on `exp` with nothing applied (no backward, no optimizer step)."""
    trainer._backward = lambda loss, share: None
    trainer.optimizer.step = lambda: None
    return trainer.update(exp)["loss/policy"]


def stale(exp, seed=0):
    """The rollout's behaviour log-probs moved by +-0.4 per token, so ratios lie outside every clip range."""
    gen = torch.Generator().manual_seed(seed)
    delta = (torch.rand(exp.rollout.logp.shape, generator=gen) - 0.5) * 0.8 * exp.rollout.valid
    exp.rollout.logp = exp.rollout.logp - delta
    return exp


def expected(exp, weights, objective):
    return -(objective * weights[:, None] * exp.rollout.valid).sum().item()


@pytest.mark.parametrize("loss", [{"clip_low": 0.2, "clip_high": 0.28}, {"ratio": "sequence"},
                                  {"ratio": "sequence", "clip_low": 3e-4, "clip_high": 4e-4},
                                  {"clip": "weight", "clip_high": 4.0}, {"clip": "weight", "clip_high": 0.1}])
def test_the_update_trains_on_the_objective_its_options_define(tiny_causal_policy, loss):
    torch.manual_seed(0)
    trainer = make_trainer("grpo", tiny_causal_policy, config("grpo", 0, ppo=ONE_STEP, grpo={"loss": loss}))
    exp = trainer.collect()
    new = exp.rollout.logp.clone()  # the policy does not move before the loss: its log-probs are the recorded ones
    old, valid, adv = stale(exp).rollout.logp, exp.rollout.valid, exp.advantages
    got = loss_of_one_update(trainer, exp)
    ratio, _ = importance_ratio(new, old, valid, loss.get("ratio", "token"))
    high = loss.get("clip_high", 0.2)
    if loss.get("clip") == "weight":
        want = weight_clipped_objective(ratio, adv, new, loss.get("clip_low"), high)
    else:
        want = clipped_objective(ratio, adv, loss.get("clip_low", 0.2), high)
    default = clipped_objective(torch.exp(new - old), adv, 0.2, 0.2)  # what a trainer ignoring the option trains on
    assert got == pytest.approx(expected(exp, exp.token_weight, want), rel=1e-3, abs=1e-5)
    assert got != pytest.approx(expected(exp, exp.token_weight, default), rel=1e-2, abs=1e-4)


class ConstantForI:
    """The share of e's, except that every generation for the prompt "I" earns 0.5: its groups are uniform."""
    name = "e_share"

    def __call__(self, samples, generations):
        return [0.5 if s.prompt == "I" else sum(c == "e" for c in g) / max(1, len(g))
                for s, g in zip(samples, generations)]


def test_dynamic_sampling_drops_the_uniform_groups_from_the_update(tiny_causal_policy):
    torch.manual_seed(0)
    trainer = make_trainer("grpo", tiny_causal_policy, config("grpo", 0, grpo={"loss": {"dynamic_sampling": True}},
                                                              ppo=ONE_STEP))
    trainer.reward_fn = ConstantForI()
    exp = trainer.collect()
    groups = exp.task_reward.reshape(-1, 4)
    uniform = (groups == groups[:, :1]).all(dim=1).repeat_interleave(4)
    assert uniform.any() and not uniform.all()
    stats = trainer.algorithm_stats()
    assert stats["dynamic_sampling/dropped_episodes"] == uniform.sum().item()
    assert stats["dynamic_sampling/dropped_groups"] * 4 == uniform.sum().item()
    loss_of_one_update(trainer, exp)
    assert torch.all(exp.token_weight[uniform] == 0) and torch.all(exp.token_weight[~uniform] > 0)
    # the kept episodes make one whole objective: GRPO's mean over the kept sequences of their token means
    kept = ~uniform
    assert (exp.token_weight[kept] * exp.rollout.valid[kept].sum(1)).sum().item() == pytest.approx(1.0)


def test_the_overlong_penalty_reaches_the_advantages(tiny_causal_policy):
    """A reward of 0 everywhere: GRPO's advantages are all 0 unless the penalty makes longer episodes worse.
    (The tiny model rarely ends early, so the round's episodes are cut to chosen lengths before the seam.)"""
    torch.manual_seed(0)
    cfg = config("grpo", 0, rollout={"min_new_tokens": 1, "max_new_tokens": 6}, grpo={"loss": {"overlong_buffer": 0.5}})
    trainer = make_trainer("grpo", tiny_causal_policy, cfg)
    trainer.reward_fn = lambda samples, generations: [0.0] * len(generations)
    episodes = trainer.rollout_round(trainer._my_samples(8))
    lengths = torch.tensor([6, 5, 4, 2, 3, 3, 6, 6])
    rollout = episodes.rollout
    rollout.valid[:] = (torch.arange(rollout.valid.shape[1])[None, :] < lengths[:, None]).to(rollout.valid.dtype)
    rollout.last_index[:] = lengths - 1
    advantage = trainer.advantages(episodes).advantages[:, 0]
    assert torch.all(episodes.task_reward == 0)  # the logged task reward stays the task's
    # L_max 6, L_cache 3: penalties 0 up to 3 tokens, then -1/3, -2/3, -1 (times overlong_penalty 1)
    first = advantage[:4]
    assert first[0] < first[1] < first[2] and first[2] < first[3] and first[3] == pytest.approx(first.max())
    assert torch.all(advantage[4:6] > advantage[6:8])


def test_a_sequence_ratio_refuses_transition_minibatches(tiny_causal_policy):
    cfg = config("grpo", 0, ppo={"minibatch": "transitions"}, grpo={"loss": {"ratio": "sequence"}})
    with pytest.raises(ValueError, match="ppo.minibatch=episodes"):
        make_trainer("grpo", tiny_causal_policy, cfg)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("algo", ["dapo", "gspo", "cispo"])
def test_each_preset_raises_a_terminal_reward_within_the_budget(tiny_causal_policy, algo, seed):
    """As tests/train/rl/test_critic_free_learning.py holds GRPO to: the mean reward of the last 3 of 25
    iterations at least 0.1 above the first 3's, with the preset's own loss options over GRPO's settings."""
    preset = get_algorithm(algo).preset
    torch.manual_seed(seed)
    trainer = make_trainer(algo, tiny_causal_policy, config("grpo", seed, grpo=preset["grpo"],
                                                            ppo={**preset.get("ppo", {})}))
    rewards = [trainer.step()["reward_mean"] for _ in range(25)]
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.1, (algo, seed, rewards)
