"""Each loss option on hand-computed values (grue/train/rl/loss_options.py; docs/algorithms.md gives the
equations, their papers and the reference code they were checked against)."""
import math

import pytest
import torch

from grue.train.rl.loss_options import (clipped_objective, clipped_share, importance_ratio, informative_groups,
                                        overlong_penalty, weight_clipped_objective)
from grue.train.rl.policy_gradient import weighted_clipped_loss

LN = math.log


def test_a_token_ratio_is_each_tokens_own():
    new, old = torch.tensor([[LN(2.0), LN(0.5)]]), torch.zeros(1, 2)
    ratio, log_ratio = importance_ratio(new, old, torch.ones(1, 2), "token")
    assert torch.allclose(ratio, torch.tensor([[2.0, 0.5]])) and torch.allclose(log_ratio, new)


def test_a_sequence_ratio_is_the_geometric_mean_over_real_tokens_with_gspos_gradient():
    # log r = ln 2, ln 8 on the real tokens (the third is padding): s = exp((ln 2 + ln 8) / 2) = 4 on every token
    new = torch.tensor([[LN(2.0), LN(8.0), 5.0]], requires_grad=True)
    ratio, _ = importance_ratio(new, torch.zeros(1, 3), torch.tensor([[1.0, 1.0, 0.0]]), "sequence")
    assert torch.allclose(ratio[0, :2], torch.tensor([4.0, 4.0]))
    ratio[0, :2].sum().backward()
    assert torch.allclose(new.grad, torch.tensor([[4.0, 4.0, 0.0]]))  # d/dlogpi_t of sg[s] pi_t / sg[pi_t] = s


def test_the_clip_is_symmetric_or_decoupled():
    ratio = torch.tensor([0.7, 1.0, 1.3, 1.25])
    up, down = torch.ones(4), -torch.ones(4)
    assert torch.allclose(clipped_objective(ratio, up, 0.2, 0.2), torch.tensor([0.7, 1.0, 1.2, 1.2]))
    assert torch.allclose(clipped_objective(ratio, up, 0.2, 0.28), torch.tensor([0.7, 1.0, 1.28, 1.25]))
    assert torch.allclose(clipped_objective(ratio, down, 0.2, 0.28), torch.tensor([-0.8, -1.0, -1.3, -1.25]))


def test_a_clipped_weight_keeps_every_tokens_gradient():
    # r = 6 and 0.1; CISPO caps the weight at 1 + 4 = 5 with no lower bound, and the gradient is weight * A
    new = torch.tensor([LN(6.0), LN(0.1)], requires_grad=True)
    ratio = torch.exp(new)  # old log-probs 0
    objective = weight_clipped_objective(ratio, torch.tensor([1.0, -2.0]), new, None, 4.0)
    assert torch.allclose(objective, torch.tensor([5.0 * LN(6.0), 0.1 * -2.0 * LN(0.1)]))
    objective.sum().backward()
    assert torch.allclose(new.grad, torch.tensor([5.0, -0.2]))
    ppo = torch.tensor([LN(6.0)], requires_grad=True)  # PPO's clip: no gradient beyond 1 + eps with A > 0
    clipped_objective(torch.exp(ppo), torch.ones(1), 0.2, 0.2).sum().backward()
    assert ppo.grad.item() == 0.0
    lower = weight_clipped_objective(torch.tensor([0.1]), torch.ones(1), torch.tensor([1.0]), 0.2, 4.0)
    assert torch.allclose(lower, torch.tensor([0.8]))  # with a lower bound the weight is clipped below too


def test_the_weighted_loss_reads_its_options():
    new, old = torch.tensor([[LN(1.5), LN(1.5)]]), torch.zeros(1, 2)
    adv, w, ent = torch.ones(1, 2), torch.full((1, 2), 0.5), torch.zeros(1, 2)
    plain = weighted_clipped_loss(new, old, adv, w, 0.2, ent, 0.0)
    higher = weighted_clipped_loss(new, old, adv, w, 0.2, ent, 0.0, clip_high=0.28)
    weight = weighted_clipped_loss(new, old, adv, w, None, ent, 0.0, clip_high=4.0, clip_target="weight")
    assert math.isclose(plain.policy.item(), -1.2, rel_tol=1e-6) and math.isclose(higher.policy.item(), -1.28, rel_tol=1e-6)
    assert math.isclose(weight.policy.item(), -1.5 * LN(1.5), rel_tol=1e-6)
    assert plain.clip_fraction.item() == 1.0 and higher.clip_fraction.item() == 1.0 and weight.clip_fraction.item() == 0.0


def test_clipped_share_counts_both_sides():
    ratio = torch.tensor([[0.5, 1.0, 1.5, 1.1]])
    assert clipped_share(ratio, torch.ones(1, 4), 0.2, 0.28).item() == 0.5
    assert clipped_share(ratio, torch.ones(1, 4), None, 0.28).item() == 0.25


def test_the_overlong_penalty_falls_linearly_over_the_buffer():
    # L_max 10, L_cache 4: free up to 6 tokens, then (6 - |y|) / 4, -1 at the budget
    got = overlong_penalty(torch.tensor([5, 6, 8, 10]), 10, 4)
    assert torch.allclose(got, torch.tensor([0.0, 0.0, -0.5, -1.0]))
    assert torch.allclose(overlong_penalty(torch.tensor([8]), 10, 4, factor=0.5), torch.tensor([-0.25]))
    assert torch.equal(overlong_penalty(torch.tensor([10]), 10, 0), torch.zeros(1))


@pytest.mark.parametrize("size,want", [(2, [0.0, 0.0, 1.0, 1.0]), (4, [1.0] * 4), (1, [0.0] * 4)])
def test_dynamic_sampling_keeps_the_groups_whose_rewards_differ(size, want):
    assert informative_groups(torch.tensor([1.0, 1.0, 0.0, 1.0]), size).tolist() == want
