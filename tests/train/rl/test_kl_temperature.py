"""kl.temperature: both sides of the KL at log softmax(logits / T) (Ziegler et al.'s tempered reference).

Checked against the logits themselves (an independent full forward, and one position by hand with
Python floats), against today's values bit for bit when unset, and at the start of training, where the
policy is the reference: the KL at the sampling temperature is zero only when both sides are tempered.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch

from grue.train.rl.critic_free_config import LossOptions
from grue.config import config_hash, load_config
from grue.data.sample import Sample
from grue.policy.load import frozen_copy
from grue.train.rl.kl_temperature import check_kl_temperature, kl_log_probs, kl_temperature, tempered_log_probs
from grue.train.rl.rollout import sample_episodes
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]


def _rollout(policy, temperature: float, seed: int = 3):
    torch.manual_seed(seed)
    return policy.sample(policy.encode(PROMPTS), rollout_settings(temperature=temperature, max_new_tokens=5))


def _logits(policy, model, rollout) -> torch.Tensor:
    with torch.no_grad():
        logits, _ = policy.forward(model, rollout.prompts, rollout.actions, rollout.valid)
    return logits.float()


def _perturbed_copy(model, scale: float = 0.3):
    other = frozen_copy(model)
    torch.manual_seed(7)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(torch.randn_like(p) * scale)
    return other


def test_the_setting_names_a_temperature():
    assert kl_temperature(None, 0.7) == 1.0            # unset: temperature 1 whatever was sampled at
    assert kl_temperature("sampling", 0.7) == 0.7      # Ziegler's: the sampling temperature
    assert kl_temperature(0.5, 0.7) == 0.5
    for good in (None, "sampling", 0.7, 2):
        check_kl_temperature(good)
    for bad in ("hot", 0, -0.5, float("nan"), float("inf"), True):
        with pytest.raises(KeyError, match="positive number"):
            check_kl_temperature(bad)


def test_the_reference_log_prob_at_t_is_log_softmax_of_logits_over_t(tiny_causal_policy):
    policy = tiny_causal_policy
    ref = _perturbed_copy(policy.model)
    rollout = _rollout(policy, 0.7)
    got = tempered_log_probs(policy, ref, rollout, 0.7)
    logits = _logits(policy, ref, rollout)
    expected = torch.log_softmax(logits / 0.7, -1).gather(-1, rollout.actions.unsqueeze(-1)).squeeze(-1)
    valid = rollout.valid.bool()
    assert torch.allclose(got[valid], expected[valid], atol=1e-5)
    # one position by hand: z_a / T - log sum_v exp(z_v / T)
    z = logits[0, 0].tolist()
    a = int(rollout.actions[0, 0])
    by_hand = z[a] / 0.7 - math.log(sum(math.exp(v / 0.7) for v in z))
    assert got[0, 0].item() == pytest.approx(by_hand, abs=1e-5)
    # and it is not the temperature-1 value (the test can tell the two apart)
    untempered = z[a] - math.log(sum(math.exp(v) for v in z))
    assert abs(by_hand - untempered) > 1e-2


def test_unset_gives_todays_values_exactly(tiny_causal_policy):
    policy = tiny_causal_policy
    ref = _perturbed_copy(policy.model)
    rollout = _rollout(policy, 0.7)
    same, ref_logp = kl_log_probs(policy, ref, rollout, None)
    assert same is rollout  # the policy's side: the log-probs recorded while sampling, untouched
    assert torch.equal(ref_logp, policy.raw_log_probs(ref, rollout))
    # `sampling` on a rollout sampled at temperature 1 is the same thing
    plain = _rollout(policy, 1.0)
    same, ref_logp = kl_log_probs(policy, ref, plain, "sampling")
    assert same is plain and torch.equal(ref_logp, policy.raw_log_probs(ref, plain))


def test_at_the_start_the_kl_at_the_sampling_temperature_is_zero_on_both_sides(tiny_causal_policy):
    policy = tiny_causal_policy
    ref = frozen_copy(policy.model)  # the start of training: the policy is the reference
    rollout = _rollout(policy, 0.7)
    valid = rollout.valid.bool()
    tempered, ref_logp = kl_log_probs(policy, ref, rollout, "sampling")
    kl = (tempered.raw_logp - ref_logp)[valid]
    assert kl.abs().max().item() < 1e-5
    # Tempering the reference alone would compare the untempered policy with the tempered reference:
    # a KL away from zero before any update.
    one_sided = (rollout.raw_logp - ref_logp)[valid]
    assert one_sided.abs().mean().item() > 1e-2  # 1,000x the tolerance above (the tiny model is near uniform)


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_after_the_policy_moved_the_kl_is_the_tempered_log_ratio(kind, tiny_causal_policy, tiny_seq2seq_policy):
    policy = tiny_causal_policy if kind == "causal" else tiny_seq2seq_policy
    ref = _perturbed_copy(policy.model)  # as if the policy had moved away from the reference
    rollout = _rollout(policy, 0.7)
    valid = rollout.valid.bool()
    tempered, ref_logp = kl_log_probs(policy, ref, rollout, 0.5)
    pick = rollout.actions.unsqueeze(-1)
    own = torch.log_softmax(_logits(policy, policy.model, rollout) / 0.5, -1).gather(-1, pick).squeeze(-1)
    theirs = torch.log_softmax(_logits(policy, ref, rollout) / 0.5, -1).gather(-1, pick).squeeze(-1)
    assert torch.allclose((tempered.raw_logp - ref_logp)[valid], (own - theirs)[valid], atol=1e-5)
    assert torch.equal(tempered.raw_logp[~valid], torch.zeros_like(tempered.raw_logp[~valid]))
    assert torch.equal(tempered.logp, rollout.logp)  # what was sampled from is not touched
    untempered, ref1 = kl_log_probs(policy, ref, rollout, None)
    assert ((tempered.raw_logp - ref_logp) - (untempered.raw_logp - ref1))[valid].abs().max() > 1e-2


def test_a_rollout_round_measures_the_kl_at_the_configured_temperature(tiny_causal_policy):
    policy = tiny_causal_policy
    ref = frozen_copy(policy.model)
    samples = [Sample(id=str(i), prompt=p, references=[]) for i, p in enumerate(PROMPTS)]
    reward = lambda samples, generations: [1.0] * len(samples)  # noqa: E731
    gen = rollout_settings(temperature=0.7, max_new_tokens=5)
    tempered = sample_episodes(policy, samples, gen, 4, reward, ref, seed=0, iteration=0, kl_temperature="sampling")
    plain = sample_episodes(policy, samples, gen, 4, reward, ref, seed=0, iteration=0)
    assert torch.equal(tempered.rollout.actions, plain.rollout.actions)  # same episodes, keyed noise
    valid = plain.rollout.valid.bool()
    assert (tempered.rollout.raw_logp - tempered.ref_logp)[valid].abs().max() < 1e-5
    assert not torch.allclose(tempered.ref_logp[valid], plain.ref_logp[valid], atol=1e-3)


def test_the_trainer_passes_the_setting_to_its_rollouts(monkeypatch):
    from grue.train.rl import trainer as trainer_module

    seen = {}
    monkeypatch.setattr(trainer_module, "sample_episodes", lambda *a, **k: seen.update(k))
    cfg = SimpleNamespace(rollout=None, ppo=SimpleNamespace(rollout_batch_size=4), seed=0,
                          kl=SimpleNamespace(temperature="sampling"))
    fake = SimpleNamespace(cfg=cfg, policy=None, reward_fn=None, ref_model=None, rollout_processors=None, iteration=2)
    trainer_module.RLTrainer.rollout_round(fake, [])
    assert seen["kl_temperature"] == "sampling"


def test_unset_keeps_every_hash_and_a_set_value_is_a_new_setting():
    base = ["task=imdb", "profile=mini", "algo=ppo"]
    assert config_hash(load_config(base)) == config_hash(load_config([*base, "kl.temperature=null"]))
    assert config_hash(load_config(base)) != config_hash(load_config([*base, "kl.temperature=sampling"]))
    assert config_hash(load_config([*base, "kl.temperature=0.7"])) != config_hash(
        load_config([*base, "kl.temperature=sampling"]))


@pytest.mark.parametrize("setting, t_kl", [(None, 1.0), ("sampling", 0.7), (0.5, 0.5)])
def test_a_critic_free_loss_compares_with_the_reference_at_the_kl_temperature(tiny_causal_policy, setting, t_kl):
    """GRPO's k3 term in the loss: the policy's log softmax(logits / T_kl) against the reference's at T_kl."""
    from grue.train.rl.critic_free import CriticFreeTrainer
    from grue.train.rl.policy_gradient import k3_kl, weighted_clipped_loss

    policy = tiny_causal_policy
    ref = _perturbed_copy(policy.model)
    rollout = _rollout(policy, 0.7)
    rollout, ref_logp = kl_log_probs(policy, ref, rollout, setting)
    valid = rollout.valid
    advantages = torch.randn(valid.shape, generator=torch.Generator().manual_seed(4)) * valid
    mb = SimpleNamespace(rollout=rollout, ref_logp=ref_logp, advantages=advantages,
                         token_weight=torch.ones(valid.shape[0]))
    kl_coef = 0.5
    stub = SimpleNamespace(cfg=SimpleNamespace(ppo=SimpleNamespace(clip_range=0.2, ent_coef=0.0),
                                               kl=SimpleNamespace(temperature=setting, estimator="k3")),
                           policy=policy, iteration=0, loss_kl_coef=lambda: kl_coef, clip_range=lambda: 0.2,
                           loss_options=LossOptions, clip_bounds=lambda: (0.2, 0.2),
                           _backward=lambda loss, share: None, _kl_loss_total=0.0, _kl_loss_steps=0)
    got = CriticFreeTrainer._backward_minibatch(stub, mb, valid.clone(), None).total.item()

    logits = _logits(policy, policy.model, rollout)
    pick = rollout.actions.unsqueeze(-1)
    sampled = torch.log_softmax(logits / 0.7, -1).gather(-1, pick).squeeze(-1)
    own = torch.log_softmax(logits / t_kl, -1).gather(-1, pick).squeeze(-1)
    entropy = torch.zeros_like(sampled)

    def loss(kl):
        return weighted_clipped_loss(sampled, rollout.logp, advantages, valid, 0.2, entropy, 0.0, kl, kl_coef).loss.item()

    assert got == pytest.approx(loss(k3_kl(own, ref_logp)), abs=1e-5)
    # at the start of training (policy = reference) the tempered term is zero; here it is not, and the
    # loss tells the KL's temperature apart
    other = 1.0 if t_kl != 1.0 else 0.5
    wrong = torch.log_softmax(logits / other, -1).gather(-1, pick).squeeze(-1)
    assert abs(loss(k3_kl(wrong, ref_logp)) - got) > 1e-4
