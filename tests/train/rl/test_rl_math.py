"""GAE, the KL controller, the KL-penalised reward, the PPO loss and the NLPO top-p mask, by hand."""
import math

import pytest
import torch

from grue.train.rl.gae import gae
from grue.train.rl.kl import AdaptiveKLController, kl_penalised_rewards
from grue.train.rl.nlpo_mask import top_p_mask
from grue.train.rl.ppo_loss import ppo_loss


def test_gae_matches_hand_computed_trajectory():
    # one episode of 3 tokens then padding; gamma 0.9, lambda 0.5
    r = torch.tensor([[0.0, 0.0, 1.0, 0.0]])
    v = torch.tensor([[0.5, 0.2, 0.4, 9.9]])  # the padded value must be ignored
    valid = torch.tensor([[1.0, 1.0, 1.0, 0.0]])
    g, lam = 0.9, 0.5
    d2 = 1.0 - 0.4                      # terminal: no bootstrap
    d1 = 0.0 + g * 0.4 - 0.2
    d0 = 0.0 + g * 0.2 - 0.5
    a2 = d2
    a1 = d1 + g * lam * a2
    a0 = d0 + g * lam * a1
    adv, ret = gae(r, v, valid, g, lam)
    assert adv[0, :3].tolist() == pytest.approx([a0, a1, a2])
    assert adv[0, 3].item() == 0.0
    assert ret[0, :3].tolist() == pytest.approx([a0 + 0.5, a1 + 0.2, a2 + 0.4])


def test_gae_rows_are_independent_and_lambda_one_gives_discounted_return():
    r = torch.tensor([[0.0, 2.0], [3.0, 0.0]])
    v = torch.zeros(2, 2)
    valid = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    adv, _ = gae(r, v, valid, gamma=0.5, lam=1.0)
    assert adv.flatten().tolist() == pytest.approx([1.0, 2.0, 3.0, 0.0])


def test_kl_controller_follows_equations_2_and_3():
    ctl = AdaptiveKLController(init_coef=0.1, target=0.1, k_beta=0.2)
    ctl.update(0.12)                                   # e = clip(0.2, ...) = 0.2
    assert ctl.value == pytest.approx(0.1 * (1 + 0.2 * 0.2))
    before = ctl.value
    ctl.update(0.5)                                    # e clipped at +0.2
    assert ctl.value == pytest.approx(before * 1.04)
    before = ctl.value
    ctl.update(0.0)                                    # e clipped at -0.2
    assert ctl.value == pytest.approx(before * 0.96)
    before = ctl.value
    ctl.update(0.095)                                  # e = -0.05
    assert ctl.value == pytest.approx(before * (1 - 0.2 * 0.05))


def test_kl_controller_without_target_applies_no_penalty():
    ctl = AdaptiveKLController(init_coef=0.3, target=None)   # the paper's "inf" target KL
    assert ctl.value == 0.0
    for kl in (0.0, 5.0, 100.0):
        assert ctl.update(kl) == 0.0


def test_kl_controller_with_zero_rate_keeps_beta_constant():
    ctl = AdaptiveKLController(init_coef=0.3, target=0.1, k_beta=0.0)
    for kl in (0.0, 5.0, 100.0):
        assert ctl.update(kl) == 0.3


def test_kl_penalty_has_the_standard_sign_and_reward_lands_on_last_token():
    logp = torch.tensor([[-1.0, -2.0, 0.0]])
    ref = torch.tensor([[-1.5, -1.0, 0.0]])
    valid = torch.tensor([[1.0, 1.0, 0.0]])
    rewards, kl = kl_penalised_rewards(torch.tensor([2.0]), logp, ref, valid, torch.tensor([1]), beta=0.5)
    assert kl[0].tolist() == pytest.approx([0.5, -1.0, 0.0])
    # a token more likely under the policy than the reference is penalised
    assert rewards[0].tolist() == pytest.approx([-0.25, 2.0 + 0.5, 0.0])


def test_ppo_clipped_loss_by_hand():
    new = torch.log(torch.tensor([[1.5, 0.5, 1.1]]))
    old = torch.zeros(1, 3)
    adv = torch.tensor([[1.0, -1.0, 2.0]])
    mask = torch.ones(1, 3)
    zeros = torch.zeros(1, 3)
    out = ppo_loss(new, old, adv, zeros, zeros, zeros, mask, clip_range=0.2, vf_coef=0.5, ent_coef=0.0,
                   normalise_advantages=False)
    # ratio 1.5, A=1 -> min(1.5, 1.2) = 1.2 ; ratio 0.5, A=-1 -> min(-0.5, -0.8) = -0.8 ; ratio 1.1, A=2 -> 2.2
    assert out.policy.item() == pytest.approx(-(1.2 - 0.8 + 2.2) / 3)
    assert out.clip_fraction.item() == pytest.approx(2 / 3)


def test_ppo_value_and_entropy_terms_and_padding_ignored():
    new = old = torch.zeros(1, 3)
    adv = torch.zeros(1, 3)
    values = torch.tensor([[1.0, 3.0, 100.0]])
    returns = torch.tensor([[0.0, 1.0, 0.0]])
    ent = torch.tensor([[2.0, 4.0, 50.0]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])
    out = ppo_loss(new, old, adv, values, returns, ent, mask, 0.2, vf_coef=0.5, ent_coef=0.1,
                   normalise_advantages=False)
    assert out.value.item() == pytest.approx((1 + 4) / 2)
    assert out.entropy.item() == pytest.approx(3.0)
    assert out.total.item() == pytest.approx(0.5 * 2.5 - 0.1 * 3.0)


def test_top_p_mask_keeps_the_crossing_token_min_tokens_and_specials():
    probs = torch.tensor([0.5, 0.3, 0.15, 0.05])
    logits = probs.log()
    assert top_p_mask(logits, 0.7).tolist() == [True, True, False, False]       # 0.5 < 0.7, 0.8 crosses
    assert top_p_mask(logits, 0.5).tolist() == [True, False, False, False]
    assert top_p_mask(logits, 0.5, min_tokens_to_keep=3).tolist() == [True, True, True, False]
    assert top_p_mask(logits, 0.5, never_mask=[3]).tolist() == [True, False, False, True]
    assert top_p_mask(logits, 1.0).all()


def test_top_p_mask_works_on_batches_in_any_order():
    logits = torch.tensor([[0.0, 3.0, 1.0], [2.0, 0.0, 0.0]])
    mask = top_p_mask(logits, 0.6)
    p0 = torch.softmax(logits[0], -1)
    assert mask[0].tolist() == [False, True, False] and p0[1] > 0.6
    assert mask[1].tolist() == [True, False, False] or math.isclose(torch.softmax(logits[1], -1)[0].item(), 0.6)
