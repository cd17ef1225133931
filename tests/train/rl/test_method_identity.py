"""Each method is itself at the trainer level: the gradient a trainer's whole update step applies is the
gradient of its paper's objective, recomputed here from the rollout's raw rewards and lengths without the
trainer's helpers (issue 40: a REINFORCE++ trainer without its global whitening, or a GRPO trainer that
ignored `grpo.loss_aggregation`, passed every earlier test).

The update runs as in a run (`trainer.update`: normalisation, aggregation weights, minibatch scaling,
loss, backward); the optimizer's step is replaced by a capture of the gradients. One epoch of one
minibatch with no gradient clipping, so the captured gradient is the whole objective's; no KL term, so the
advantages come from the task rewards alone. Episodes are cut to 6, 2 and 4 tokens (as if they had ended
with EOS), so per-sequence, per-token and constant averages all differ.

The shared regulariser is checked the same way (the last two tests): with a reference that differs from
the policy, `kl.placement=loss` must add beta times the estimator's KL to the loss and leave the advantages
alone, and `kl.placement=reward` must subtract beta times the summed estimate from each sequence's reward
before the group statistics, with the estimator `kl.estimator` names (k3 here, so k1 in its place fails).

DPO's reference: tests/train/test_dpo_reference_identity.py.
"""
from __future__ import annotations

import math

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import run_schema
from grue.data.sample import Sample
from grue.policy.load import frozen_copy
from grue.train.registry import get_algorithm

PROMPTS = ["The film was", "dogs run in", "A tedious", "I", "Ein", "a b c"]
L = 6


class CharLength:
    name = "chars"

    def __call__(self, samples, generations):
        return [float(len(g)) for g in generations]


def trainer_for(algo, policy, group, steps=72, kl=None, reference=None):
    cfg = OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "algo": algo, "seed": 0,
        "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": L, "max_new_tokens": L},
        "ppo": {"learning_rate": 1e-3, "total_steps": steps, "steps_per_update": steps, "batch_size": 10_000,
                "epochs": 1, "rollout_batch_size": 16, "max_grad_norm": 1e9},
        "kl": kl or {"init_coef": 0.0, "target": None}}, group)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(PROMPTS)]
    reference = reference if reference is not None else frozen_copy(policy.model)
    return get_algorithm(algo).trainer_class()(cfg, policy, reference, None, CharLength(), samples,
                                               Accelerator(cpu=True))


def collect(trainer, cut=True):
    torch.manual_seed(0)
    exp = trainer.collect()
    if cut:  # episodes of 6, 2 and 4 tokens
        exp.rollout.valid[1::3, 2:] = 0.0
        exp.rollout.valid[2::3, 4:] = 0.0
    return exp


def params(trainer):
    return [p for g in trainer.optimizer.param_groups for p in g["params"]]


def update_gradient(trainer, exp):
    """The gradient trainer.update applies (captured instead of the optimizer's step)."""
    captured = []
    trainer.optimizer.step = lambda *a, **k: captured.append(
        torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params(trainer)]))
    trainer.update(exp)
    assert len(captured) == 1
    return captured[0]


def objective_gradient(trainer, exp, advantages, weights):
    """The gradient of -sum_i sum_t w_i A_it rho_it over valid tokens at the rollout's policy (rho = 1;
    the ratio is kept so the gradient is exactly the surrogate's, unclipped)."""
    valid = exp.rollout.valid
    trainer.optimizer.zero_grad(set_to_none=True)
    new_logp, _, _ = trainer.policy.action_stats(trainer.policy.model, exp.rollout, entropy_grad=False)
    ratio = torch.exp(new_logp - exp.rollout.logp)
    loss = -(weights[:, None] * valid * advantages * ratio).sum()
    loss.backward()
    out = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params(trainer)])
    trainer.optimizer.zero_grad(set_to_none=True)
    return out


def same(got, want):
    assert want.abs().max() > 0
    assert torch.allclose(got, want, rtol=1e-4, atol=1e-5 * want.abs().max().item()), \
        (got - want).abs().max().item() / want.abs().max().item()


def groups(values, size):
    return values.reshape(-1, size)


@pytest.mark.parametrize("algo, group, scale, aggregation", [
    ("grpo", {"grpo": {"group_size": 3}}, True, "sequence"),                         # GRPO: 1/|o_i|
    ("grpo", {"grpo": {"group_size": 3, "scale_rewards": False, "loss_aggregation": "constant"}}, False, "constant"),
    ("dr_grpo", {"grpo": {"group_size": 3, "scale_rewards": False, "loss_aggregation": "constant"}}, False, "constant")])
def test_grpo_and_dr_grpo_update_along_their_own_advantage_and_aggregation(tiny_causal_policy, algo, group, scale,
                                                                           aggregation):
    trainer = trainer_for(algo, tiny_causal_policy, group)
    exp = collect(trainer)
    valid, r = exp.rollout.valid.clone(), exp.task_reward.clone()
    g = groups(r, 3)
    centred = g - g.mean(dim=1, keepdim=True)
    if scale:  # Eq. 3's outcome advantage: over the group's sample std (divisor G - 1)
        centred = centred / (((g - g.mean(dim=1, keepdim=True)) ** 2).sum(dim=1, keepdim=True) / 2).sqrt().add(1e-4)
    advantages = centred.reshape(-1)[:, None].expand_as(valid)
    n, lengths = valid.shape[0], valid.sum(dim=1)
    weights = 1.0 / (n * lengths) if aggregation == "sequence" else torch.full_like(lengths, 1.0 / (n * L))
    assert len(set(lengths.tolist())) == 3  # lengths differ, so the three averages differ
    want = objective_gradient(trainer, exp, advantages, weights)
    same(update_gradient(trainer, exp), want)


def test_rloo_updates_along_the_leave_one_out_baseline(tiny_causal_policy):
    """k = 3: the baseline is the mean of the other two samples (the group mean, which includes the sample,
    gives 2/3 of the advantage); the loss is each sequence's log-prob times its advantage, over N."""
    trainer = trainer_for("rloo", tiny_causal_policy, {"rloo": {"k": 3}})
    exp = collect(trainer)
    valid, r = exp.rollout.valid.clone(), exp.task_reward.clone()
    g = groups(r, 3)
    advantages = (g - (g.sum(dim=1, keepdim=True) - g) / 2).reshape(-1)[:, None].expand_as(valid)
    weights = torch.full((valid.shape[0],), 1.0 / valid.shape[0])
    same(update_gradient(trainer, exp), objective_gradient(trainer, exp, advantages, weights))


def test_rloo_paper_takes_one_unclipped_step_on_the_whole_rollout(tiny_causal_policy):
    trainer = trainer_for("rloo_paper", tiny_causal_policy, {"rloo": {"k": 3, "steps": "single"}})
    trainer.cfg.ppo.epochs, trainer.cfg.ppo.batch_size, trainer.cfg.ppo.clip_range = 3, 8, 1e-6
    exp = collect(trainer, cut=False)
    steps = trainer.update(exp)["optimizer_steps"]
    assert steps == 1 and trainer.clip_range() == math.inf


@pytest.mark.parametrize("algo, group", [("reinforce_pp", {}),
                                         ("reinforce_pp_baseline", {"reinforce_pp_baseline": {"group_size": 3}})])
def test_reinforce_pp_updates_along_globally_whitened_returns(tiny_causal_policy, algo, group):
    """No KL and gamma 1: every token's return is its episode's reward (minus the group mean for the
    baseline variant), whitened over every valid token of the batch; PPO's token mean."""
    trainer = trainer_for(algo, tiny_causal_policy, group)
    exp = collect(trainer)
    valid, r = exp.rollout.valid.clone(), exp.task_reward.clone()
    if algo == "reinforce_pp_baseline":
        g = groups(r, 3)
        r = (g - g.mean(dim=1, keepdim=True)).reshape(-1)
    returns = r[:, None].expand_as(valid)
    tokens = valid.sum()
    mean = (returns * valid).sum() / tokens
    std = (((returns - mean) ** 2 * valid).sum() / tokens).sqrt()
    advantages = (returns - mean) / (std + 1e-8)
    weights = torch.full((valid.shape[0],), 1.0 / tokens.item())
    same(update_gradient(trainer, exp), objective_gradient(trainer, exp, advantages, weights))


BETA = 0.5


def _perturbed_reference(policy):
    reference = frozen_copy(policy.model)
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for p in reference.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=generator))
    return reference


def _k3(logp, ref_logp):
    """pi_ref/pi - log(pi_ref/pi) - 1, written out here (GRPO's Eq. 4)."""
    return torch.exp(ref_logp - logp) - (ref_logp - logp) - 1


def _grpo_advantages(rewards):
    g = groups(rewards, 3)
    centred = g - g.mean(dim=1, keepdim=True)
    return (centred / ((centred ** 2).sum(dim=1, keepdim=True) / 2).sqrt().add(1e-4)).reshape(-1)


def _kl_trainer(policy, placement):
    kl = {"init_coef": BETA, "target": 0.5, "k_beta": 0.0, "placement": placement, "estimator": "k3"}
    reference = _perturbed_reference(policy)
    trainer = trainer_for("grpo", policy, {"grpo": {"group_size": 3}}, kl=kl, reference=reference)
    exp = collect(trainer, cut=False)  # full-length episodes: the KL sums cover the tokens the update weighs
    with torch.no_grad():  # the KL compares unmasked distributions (min_new_tokens masks EOS when sampling)
        _, _, ref_logp = trainer.policy.action_and_raw_stats(reference, exp.rollout, entropy_grad=False)
    assert (ref_logp - exp.rollout.raw_logp).abs().max() > 1e-2  # the reference differs from the policy
    return trainer, exp, ref_logp


def test_the_kl_in_the_loss_adds_beta_times_k3_and_leaves_the_advantages_alone(tiny_causal_policy):
    trainer, exp, ref_logp = _kl_trainer(tiny_causal_policy, "loss")
    valid = exp.rollout.valid
    advantages = _grpo_advantages(exp.task_reward.clone())[:, None].expand_as(valid)
    weights = 1.0 / (valid.shape[0] * valid.sum(dim=1))  # GRPO's 1/|o_i|, over N sequences
    trainer.optimizer.zero_grad(set_to_none=True)
    logp, _, raw_logp = trainer.policy.action_and_raw_stats(trainer.policy.model, exp.rollout, entropy_grad=False)
    ratio = torch.exp(logp - exp.rollout.logp)
    loss = (weights[:, None] * valid * (-advantages * ratio + BETA * _k3(raw_logp, ref_logp))).sum()
    loss.backward()
    want = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params(trainer)])
    trainer.optimizer.zero_grad(set_to_none=True)
    same(update_gradient(trainer, exp), want)


def test_the_kl_in_the_reward_subtracts_beta_times_the_summed_estimate_before_the_group_statistics(tiny_causal_policy):
    trainer, exp, ref_logp = _kl_trainer(tiny_causal_policy, "reward")
    valid = exp.rollout.valid
    penalised = exp.task_reward.clone() - BETA * (_k3(exp.rollout.raw_logp, ref_logp) * valid).sum(dim=1)
    advantages = _grpo_advantages(penalised)[:, None].expand_as(valid)
    weights = 1.0 / (valid.shape[0] * valid.sum(dim=1))
    same(update_gradient(trainer, exp), objective_gradient(trainer, exp, advantages, weights))
