"""The reward model's objectives and accuracy figures, checked against their equations by hand."""
import math

import pytest
import torch

from grue.rewards.learned.accuracy import candidate_auc, choice_accuracy, roc_auc
from grue.rewards.learned.loss import classifier_loss, comparison_loss


def test_comparison_loss_is_the_negative_log_softmax_of_the_chosen_candidate():
    rewards = torch.tensor([[1.0, 2.0, 0.0, -1.0], [0.5, 0.5, 3.0, 0.0]])
    chosen = torch.tensor([1, 0])
    by_hand = [-math.log(math.exp(2.0) / (math.exp(1) + math.exp(2) + math.exp(0) + math.exp(-1))),
               -math.log(math.exp(0.5) / (2 * math.exp(0.5) + math.exp(3) + math.exp(0)))]
    assert comparison_loss(rewards, chosen).item() == pytest.approx(sum(by_hand) / 2, rel=1e-6)


def test_pairwise_comparison_loss_is_bradley_terry():
    rewards, chosen = torch.tensor([[0.3, 1.1]]), torch.tensor([0])
    sigmoid = 1 / (1 + math.exp(-(0.3 - 1.1)))
    assert comparison_loss(rewards, chosen).item() == pytest.approx(-math.log(sigmoid), rel=1e-6)


def test_comparison_loss_only_sees_reward_differences():
    rewards, chosen = torch.tensor([[1.0, -2.0, 0.5]]), torch.tensor([2])
    assert comparison_loss(rewards + 7.0, chosen).item() == pytest.approx(comparison_loss(rewards, chosen).item())


def test_classifier_loss_is_binary_cross_entropy_with_the_chosen_one_positive():
    logits, chosen = torch.tensor([[2.0, -1.0]]), torch.tensor([1])
    p = [1 / (1 + math.exp(-2.0)), 1 / (1 + math.exp(1.0))]
    by_hand = (-math.log(1 - p[0]) - math.log(p[1])) / 2
    assert classifier_loss(logits, chosen).item() == pytest.approx(by_hand, rel=1e-6)


def test_choice_accuracy_counts_ties_as_misses():
    assert choice_accuracy([[0.1, 0.9], [0.5, 0.5], [2.0, 1.0]], [1, 0, 1]) == pytest.approx(1 / 3)


def test_roc_auc_by_pair_counting():
    scores, labels = [0.9, 0.4, 0.4, 0.1, 0.7], [True, True, False, False, False]
    # positive-negative pairs: 0.9 beats all 3; 0.4 ties 0.4 (1/2), beats 0.1, loses to 0.7 -> 4.5 / 6
    assert roc_auc(scores, labels) == pytest.approx(4.5 / 6)
    assert math.isnan(roc_auc([1.0, 2.0], [True, True]))


def test_candidate_auc_labels_the_chosen_candidates_positive():
    assert candidate_auc([[3.0, 1.0], [0.0, 2.0]], [0, 1]) == 1.0
    assert candidate_auc([[3.0, 1.0], [0.0, 2.0]], [1, 0]) == 0.0
