"""Each critic-free method's advantage and loss against its paper's equation, on values worked out by hand.

GRPO: Shao et al. 2024, section 4.1.2 (group-normalised outcome advantage) and Eqs. 3-4 (the loss, the k3
KL); Dr. GRPO: Liu et al. 2025, section 3.2; RLOO: Ahmadian et al. 2024 (leave-one-out baseline);
REINFORCE++: Hu 2025 (A_t = r - beta sum_{i>=t} KL_i, normalised over the global batch).
Every expectation below is arithmetic on the numbers in the test, never a value read back from the code.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
from omegaconf import OmegaConf

from grue.train.rl.grpo import GRPOTrainer
from grue.train.rl.kl import AdaptiveKLController
from grue.train.rl.policy_gradient import (episode_weights, group_centred, group_normalised, k3_kl, leave_one_out,
                                           weighted_clipped_loss)
from grue.train.rl.reinforce_pp import ReinforcePPBaselineTrainer, ReinforcePPTrainer
from grue.train.rl.rloo import RLOOTrainer
from grue.train.rl.rollout import Episodes
from grue.train.rl.trainer import whiten_over_processes

REWARDS = torch.tensor([1.0, 2.0, 3.0, 6.0])  # one prompt's group of 4: mean 3, deviations -2, -1, 0, 3
SAMPLE_STD = math.sqrt((4 + 1 + 0 + 9) / 3)  # divisor G - 1 = 3


# -- advantages --------------------------------------------------------------------------------------
def test_grpo_divides_each_deviation_from_the_group_mean_by_the_group_std():
    got = group_normalised(REWARDS, 4)
    assert got.tolist() == pytest.approx([-2 / SAMPLE_STD, -1 / SAMPLE_STD, 0.0, 3 / SAMPLE_STD], rel=1e-4)
    assert got.sum().item() == pytest.approx(0.0, abs=1e-6)


def test_dr_grpo_keeps_the_deviation_from_the_group_mean_undivided():
    assert group_normalised(REWARDS, 4, scale=False).tolist() == pytest.approx([-2.0, -1.0, 0.0, 3.0])
    assert group_centred(REWARDS, 4).tolist() == pytest.approx([-2.0, -1.0, 0.0, 3.0])


def test_groups_are_consecutive_and_a_group_of_equal_rewards_gets_zero_not_nan():
    rewards = torch.cat([REWARDS, torch.full((4,), 0.7)])
    got = group_normalised(rewards, 4)
    assert got[:4].tolist() == pytest.approx([-2 / SAMPLE_STD, -1 / SAMPLE_STD, 0.0, 3 / SAMPLE_STD], rel=1e-4)
    assert got[4:].tolist() == [0.0, 0.0, 0.0, 0.0]
    # two groups of 2: [1, 2] and [3, 6] have their own means (1.5 and 4.5), not the batch's
    assert group_centred(REWARDS, 2).tolist() == pytest.approx([-0.5, 0.5, -1.5, 1.5])
    with pytest.raises(ValueError, match="groups of 3"):
        group_normalised(REWARDS, 3)


def test_rloo_baseline_is_the_mean_of_the_other_samples():
    # r_i - mean of the other three: 1 - 11/3, 2 - 10/3, 3 - 9/3, 6 - 6/3
    assert leave_one_out(REWARDS, 4).tolist() == pytest.approx([-8 / 3, -4 / 3, 0.0, 4.0])
    # equivalently k/(k-1) (r_i - mean): larger than the group-centred advantage by 4/3
    assert leave_one_out(REWARDS, 4).tolist() == pytest.approx((4 / 3 * group_centred(REWARDS, 4)).tolist())
    assert leave_one_out(torch.tensor([0.0, 1.0]), 2).tolist() == pytest.approx([-1.0, 1.0])


def test_k3_is_ratio_minus_log_ratio_minus_one_and_estimates_kl_from_the_policy_samples():
    half, quarter = math.log(0.5), math.log(0.25)
    # pi = 0.5, pi_ref = 0.25: ratio pi_ref/pi = 0.5 -> 0.5 - log 0.5 - 1
    assert k3_kl(torch.tensor(half), torch.tensor(quarter)).item() == pytest.approx(0.5 - math.log(0.5) - 1)
    # pi = 0.25, pi_ref = 0.5: ratio 2 -> 2 - log 2 - 1 (the estimator is not symmetric)
    assert k3_kl(torch.tensor(quarter), torch.tensor(half)).item() == pytest.approx(2 - math.log(2) - 1)
    assert k3_kl(torch.tensor(half), torch.tensor(half)).item() == 0.0
    # its expectation under the policy is KL(pi || pi_ref), not KL(pi_ref || pi)
    pi, ref = torch.tensor([0.7, 0.2, 0.1]), torch.tensor([0.2, 0.5, 0.3])
    expected = (pi * (pi / ref).log()).sum().item()
    assert (pi * k3_kl(pi.log(), ref.log())).sum().item() == pytest.approx(expected, rel=1e-5)
    assert expected != pytest.approx((ref * (ref / pi).log()).sum().item(), rel=1e-2)


# -- the methods' advantages, through their trainers ------------------------------------------------
def episodes(task_reward, raw_logp, ref_logp, valid):
    valid = torch.tensor(valid)
    rollout = SimpleNamespace(raw_logp=torch.tensor(raw_logp), valid=valid,
                              last_index=(valid.sum(-1).long() - 1).clamp(min=0))
    reward = torch.tensor(task_reward)
    return Episodes([], rollout, [], reward, reward, torch.tensor(ref_logp))


def trainer(cls, beta, placement="reward", estimator="k1", **groups):
    """A trainer with only what its advantage needs: the config (the shared `kl` group's placement and
    estimator, the method's own group) and the KL controller's beta."""
    out = object.__new__(cls)
    out.cfg = OmegaConf.create({"kl": {"placement": placement, "estimator": estimator}, **groups})
    out.kl_ctl = AdaptiveKLController(beta, target=1.0, k_beta=0.0)
    return out


# Two groups of 2 episodes, 3 steps each (the second episode of each group stops after 2 steps).
# Per-token log-ratios against the reference: [0.1, 0.2, 0.3] / [0.2, 0.2, -] / [0.0, 0.4, 0.0] / [0.3, 0.1, -].
EPISODES = dict(task_reward=[1.0, 0.0, 2.0, 1.0],
                raw_logp=[[-1.0, -1.0, -1.0], [-1.0, -1.0, 0.0], [-1.0, -1.0, -1.0], [-1.0, -1.0, 0.0]],
                ref_logp=[[-1.1, -1.2, -1.3], [-1.2, -1.2, 0.0], [-1.0, -1.4, -1.0], [-1.3, -1.1, 0.0]],
                valid=[[1.0, 1.0, 1.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
KL_SUMS = [0.6, 0.4, 0.4, 0.4]


def test_grpo_with_kl_in_the_loss_normalises_the_task_reward_alone():
    t = trainer(GRPOTrainer, beta=0.5, placement="loss", grpo={"group_size": 2, "scale_rewards": True})
    got = t.token_advantages(episodes(**EPISODES))
    # groups [1, 0] and [2, 1]: deviations -+0.5, sample std sqrt(0.5) -> +-0.5 / 0.7071 on every token
    a = 0.5 / math.sqrt(0.5)
    assert got[:, 0].tolist() == pytest.approx([a, -a, a, -a], rel=1e-3)
    assert (got == got[:, :1]).all()  # the sequence's advantage on each of its tokens


def test_grpo_with_kl_in_the_reward_subtracts_beta_times_the_summed_kl_first():
    t = trainer(GRPOTrainer, beta=0.5, grpo={"group_size": 2, "scale_rewards": False})
    got = t.token_advantages(episodes(**EPISODES))
    # rewards 1 - 0.3, 0 - 0.2, 2 - 0.2, 1 - 0.2 = 0.7, -0.2 | 1.8, 0.8; centred in their groups
    assert got[:, 0].tolist() == pytest.approx([0.45, -0.45, 0.5, -0.5])


def test_rloo_uses_the_kl_penalised_sequence_reward_and_the_leave_one_out_baseline():
    t = trainer(RLOOTrainer, beta=0.5, rloo={"k": 2})
    got = t.token_advantages(episodes(**EPISODES))
    # KL-penalised rewards 0.7, -0.2 | 1.8, 0.8; with k = 2 the other sample is the whole baseline
    assert got[:, 0].tolist() == pytest.approx([0.9, -0.9, 1.0, -1.0])
    assert got[:, 2].tolist() == pytest.approx([0.9, -0.9, 1.0, -1.0])


def test_reinforce_pp_advantage_is_the_reward_minus_the_kl_still_to_come():
    t = trainer(ReinforcePPTrainer, beta=0.5, reinforce_pp={"gamma": 1.0, "group_size": 1})
    got = t.token_advantages(episodes(**EPISODES))
    # A_t = r - beta * sum_{i >= t} KL_i, e.g. episode 1: 1 - 0.5 (0.6, 0.5, 0.3)
    assert got[0].tolist() == pytest.approx([0.7, 0.75, 0.85])
    assert got[1, :2].tolist() == pytest.approx([-0.2, -0.1])
    assert got[2].tolist() == pytest.approx([1.8, 1.8, 2.0])
    discounted = trainer(ReinforcePPTrainer, beta=0.5, reinforce_pp={"gamma": 0.5, "group_size": 1})
    # gamma 0.5 on episode 1's rewards [-0.05, -0.1, 1 - 0.15]: -0.05 + 0.5 (-0.1 + 0.5 * 0.85)
    assert discounted.token_advantages(episodes(**EPISODES))[0, 0].item() == pytest.approx(0.1125)


def test_reinforce_pp_baseline_subtracts_the_group_mean_reward_before_the_kl():
    t = trainer(ReinforcePPBaselineTrainer, beta=0.5, reinforce_pp_baseline={"gamma": 1.0, "group_size": 2})
    got = t.token_advantages(episodes(**EPISODES))
    # task rewards centred in their groups: 0.5, -0.5 | 0.5, -0.5; then minus beta times the KL to come
    assert got[0].tolist() == pytest.approx([0.2, 0.25, 0.35])
    assert got[1, :2].tolist() == pytest.approx([-0.7, -0.6])
    assert got[2].tolist() == pytest.approx([0.3, 0.3, 0.5])


def test_reinforce_pp_normalises_over_every_valid_token_of_the_batch():
    advantages = torch.tensor([[0.7, 0.75, 0.85], [-0.2, -0.1, 9.0]])
    valid = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    values = [0.7, 0.75, 0.85, -0.2, -0.1]  # the padded 9.0 is not part of the batch
    mean = sum(values) / 5
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / 5)
    got = whiten_over_processes(advantages, valid, world=1)
    assert got[0].tolist() == pytest.approx([(v - mean) / std for v in values[:3]], rel=1e-5)
    assert got[1].tolist() == pytest.approx([(-0.2 - mean) / std, (-0.1 - mean) / std, 0.0], rel=1e-5)


# -- the loss ----------------------------------------------------------------------------------------
VALID = torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])  # lengths 2 and 4, horizon 4


def test_loss_weights_for_each_aggregation():
    def weights(aggregation):
        return episode_weights(VALID, aggregation, sequences=2, tokens=6, horizon=4).tolist()

    assert weights("token") == pytest.approx([1 / 6, 1 / 6])
    assert weights("sequence") == pytest.approx([1 / (2 * 2), 1 / (2 * 4)])   # 1 / (N |o_i|)
    assert weights("constant") == pytest.approx([1 / (2 * 4), 1 / (2 * 4)])   # 1 / (N L)
    assert weights("sum") == pytest.approx([1 / 2, 1 / 2])


def loss_at_ratio_one(advantages, aggregation, **extra):
    weights = episode_weights(VALID, aggregation, sequences=2, tokens=6, horizon=4)[:, None] * VALID
    logp = torch.zeros(2, 4)
    return weighted_clipped_loss(logp, logp, advantages, weights, 0.2, torch.zeros(2, 4), 0.0, **extra)


def test_grpo_loss_is_a_token_mean_per_sequence_then_a_mean_over_sequences():
    advantages = torch.tensor([[1.0, 3.0, 0.0, 0.0], [2.0, 2.0, 2.0, 6.0]])
    # Eq. 3 at ratio 1: -(1/2) (mean(1, 3) + mean(2, 2, 2, 6)) = -(2 + 3) / 2
    assert loss_at_ratio_one(advantages, "sequence").loss.item() == pytest.approx(-2.5)
    # token mean over all six tokens: -(1 + 3 + 2 + 2 + 2 + 6) / 6
    assert loss_at_ratio_one(advantages, "token").loss.item() == pytest.approx(-16 / 6)
    # Dr. GRPO: each sequence's token sum over the horizon 4, then the mean: -(4/4 + 12/4) / 2
    assert loss_at_ratio_one(advantages, "constant").loss.item() == pytest.approx(-2.0)
    # RLOO's sequence log-prob: -(4 + 12) / 2
    assert loss_at_ratio_one(advantages, "sum").loss.item() == pytest.approx(-8.0)


def test_kl_in_the_loss_adds_beta_times_the_weighted_k3():
    advantages = torch.zeros(2, 4)
    kl = torch.tensor([[0.2, 0.4, 0.0, 0.0], [0.1, 0.1, 0.1, 0.5]])
    got = loss_at_ratio_one(advantages, "sequence", kl=kl, kl_coef=0.04)
    # per-sequence token means 0.3 and 0.2, their mean 0.25, times beta
    assert got.kl.item() == pytest.approx(0.25)
    assert got.loss.item() == pytest.approx(0.04 * 0.25)


def test_the_ratio_is_clipped_pessimistically_on_both_sides():
    weights = torch.tensor([[0.5, 0.5]])
    old = torch.zeros(1, 2)
    new = torch.full((1, 2), math.log(1.5))  # ratio 1.5, clip range 0.2
    advantages = torch.tensor([[1.0, -1.0]])
    got = weighted_clipped_loss(new, old, advantages, weights, 0.2, torch.zeros(1, 2), 0.0)
    # A > 0: min(1.5, 1.2) = 1.2; A < 0: min(-1.5, -1.2) = -1.5; loss = -(0.5 * 1.2 + 0.5 * -1.5)
    assert got.loss.item() == pytest.approx(0.15)
    assert got.clip_fraction.item() == 1.0
