"""DPO's loss against the paper's equation on hand-computed log-probs (Rafailov et al. 2023, Eq. 7; its
Plackett-Luce form, Appendix A.3 Eq. 18), written so a sign or a beta slip fails."""
from __future__ import annotations

import math

import pytest
import torch

from grue.train.offline.dpo_loss import choice_stats, dpo_loss, plackett_luce_nll


def test_the_pairwise_loss_is_minus_log_sigmoid_of_beta_times_the_log_ratio_margin():
    # chosen: log pi = -10, log pi_ref = -12 (ratio +2); rejected: -9 against -8 (ratio -1); beta 0.1:
    # -log sigmoid(0.1 * (2 - (-1))) = log(1 + e^-0.3) = 0.554355...
    policy = torch.tensor([[-10.0, -9.0]])
    ref = torch.tensor([[-12.0, -8.0]])
    out = dpo_loss(policy, ref, torch.tensor([[0, 1]]), torch.tensor([1]), beta=0.1)
    assert out.loss.item() == pytest.approx(0.5543552, abs=1e-6)
    # the slips this would not survive: the margin's sign (log(1 + e^0.3) = 0.8544) and beta 1 (0.0486)
    assert out.loss.item() != pytest.approx(math.log1p(math.exp(0.3)), abs=1e-3)
    assert out.loss.item() != pytest.approx(math.log1p(math.exp(-3.0)), abs=1e-3)
    assert out.scores[0].tolist() == pytest.approx([0.2, -0.1])  # the implicit rewards beta * log-ratio


def test_which_candidate_was_chosen_decides_the_sign():
    policy, ref = torch.tensor([[-10.0, -9.0]]), torch.tensor([[-12.0, -8.0]])
    swapped = dpo_loss(policy, ref, torch.tensor([[1, 0]]), torch.tensor([1]), beta=0.1)
    assert swapped.loss.item() == pytest.approx(math.log1p(math.exp(0.3)), abs=1e-6)  # 0.854355


def test_a_four_way_choice_is_the_softmax_of_the_implicit_rewards():
    # implicit rewards s = beta * (pi - ref) = [0.3, 0.1, -0.2, 0.0]; the labeler chose candidate 2:
    # -log(e^-0.2 / (e^0.3 + e^0.1 + e^-0.2 + e^0)) = 0.2 + log(4.27376...) = 1.65249...
    policy = torch.tensor([[-5.0, -6.0, -7.0, -8.0]])
    ref = torch.tensor([[-8.0, -7.0, -5.0, -8.0]])
    out = dpo_loss(policy, ref, torch.tensor([[2, 0, 1, 3]]), torch.tensor([1]), beta=0.1)
    denominator = math.exp(0.3) + math.exp(0.1) + math.exp(-0.2) + 1.0
    assert out.loss.item() == pytest.approx(0.2 + math.log(denominator), abs=1e-5)
    assert out.loss.item() == pytest.approx(1.652494, abs=1e-5)


def test_a_full_ranking_adds_one_choice_per_place_and_the_order_of_the_rest_matters():
    s = torch.tensor([[1.0, 0.0, -1.0]])  # scores directly (beta 1, reference 0)
    zero = torch.zeros_like(s)
    # ranking 0 > 1 > 2: -[1 - log(e^1 + e^0 + e^-1)] - [0 - log(e^0 + e^-1)] = 0.40761 + 0.31326
    full = dpo_loss(s, zero, torch.tensor([[0, 1, 2]]), torch.tensor([2]), beta=1.0).loss.item()
    assert full == pytest.approx(0.407606 + 0.313262, abs=1e-5)
    other = dpo_loss(s, zero, torch.tensor([[0, 2, 1]]), torch.tensor([2]), beta=1.0).loss.item()
    assert other == pytest.approx(0.407606 + 1.313262, abs=1e-5)  # 2 above 1 against their scores costs more
    first_only = dpo_loss(s, zero, torch.tensor([[0, 2, 1]]), torch.tensor([1]), beta=1.0).loss.item()
    assert first_only == pytest.approx(0.407606, abs=1e-5)  # a choice alone says nothing about the rest


def test_queries_with_fewer_candidates_ignore_their_empty_slots():
    s = torch.tensor([[0.5, -0.5, 0.0], [0.5, -0.5, 9.0]])  # the 9.0 sits in a slot the second query lacks
    present = torch.tensor([[True, True, True], [True, True, False]])
    per_query = plackett_luce_nll(s, torch.tensor([[0, 1, 2], [0, 1, 2]]), torch.tensor([1, 1]), present)
    assert per_query[1].item() == pytest.approx(math.log1p(math.exp(-1.0)), abs=1e-6)  # the pairwise loss
    assert per_query[0].item() == pytest.approx(-0.5 + math.log(math.exp(0.5) + math.exp(-0.5) + 1.0), abs=1e-6)


def test_the_gradient_raises_the_chosen_log_prob_and_lowers_the_others():
    policy = torch.tensor([[-10.0, -9.0, -9.5]], requires_grad=True)
    dpo_loss(policy, torch.full((1, 3), -10.0), torch.tensor([[0, 1, 2]]), torch.tensor([1]), beta=0.1).loss.backward()
    grad = policy.grad[0]
    assert grad[0] < 0 and grad[1] > 0 and grad[2] > 0  # descent raises the chosen, lowers the rest
    assert grad.sum().item() == pytest.approx(0.0, abs=1e-7)  # a softmax: only differences move


def test_choice_statistics_count_a_tie_as_a_miss():
    scores = torch.tensor([[0.2, 0.1, 0.0], [0.3, 0.3, 0.0]])
    present = torch.ones(2, 3, dtype=torch.bool)
    stats = choice_stats(scores, torch.tensor([0, 0]), present)
    assert stats["accuracy"] == 0.5
    assert stats["margin"] == pytest.approx(((0.2 - 0.05) + (0.3 - 0.15)) / 2)
