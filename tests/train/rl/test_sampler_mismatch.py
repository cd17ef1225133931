"""The sampler-vs-learner gap (grue/train/rl/mismatch.py): logged every iteration, exactly 0 on the exact (fp32)
path and > 0 under a bf16 sampler; truncated importance weights (ppo.tis_cap) on hand-computed values, and
a trainer that ignores the cap fails here."""
from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
from accelerate import Accelerator

from grue.policy.load import build_value, frozen_copy
from grue.train.rl.mismatch import mismatch_results, mismatch_stats, truncated_is_weights
from grue.train.rl.ppo_loss import policy_terms
from grue.train.rl.trainer import RLTrainer
from tests.train.rl.test_critic_free_learning import PROMPTS, ShareOfE, config, make_trainer

ONE_STEP = {"epochs": 1, "batch_size": 10_000, "minibatch": "episodes"}  # one minibatch holding every episode
SHORT = {"total_steps": 64 * 2}


# -- the formulas, by hand ----------------------------------------------------------------------------------
def test_mismatch_figures_on_hand_computed_values():
    rollout = SimpleNamespace(logp=torch.tensor([[-1.0, -2.0, 0.0], [-0.5, 0.0, 0.0]]),
                              sampler_logp=torch.tensor([[-1.2, -1.9, 9.0], [-0.5, 0.0, 0.0]]),
                              valid=torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]]))
    stats = mismatch_stats(rollout)
    # deltas on the 3 valid tokens: -0.2, 0.1, 0.0 (the padded 9.0 is no token)
    assert stats["mismatch/abs_mean"] == pytest.approx(0.3 / 3)
    assert stats["mismatch/abs_max"] == pytest.approx(0.2)
    k3 = (math.exp(0.2) - 0.2 - 1) + (math.exp(-0.1) + 0.1 - 1)
    assert stats["mismatch/kl"] == pytest.approx(k3 / 3)
    exact = SimpleNamespace(logp=rollout.logp, sampler_logp=None, valid=rollout.valid)
    assert mismatch_stats(exact) == {"mismatch/abs_mean": 0.0, "mismatch/abs_max": 0.0, "mismatch/kl": 0.0}


def test_truncated_importance_weights_on_hand_computed_values():
    learner = torch.tensor([[math.log(0.5), math.log(0.3), math.log(0.9)]])
    sampler = torch.tensor([[math.log(0.25), math.log(0.6), math.log(0.1)]])
    # ratios 2.0, 0.5, 9.0, capped at 3
    assert torch.allclose(truncated_is_weights(learner, sampler, 3.0), torch.tensor([[2.0, 0.5, 3.0]]))
    assert truncated_is_weights(learner, sampler, None) is None
    assert truncated_is_weights(learner, None, 3.0) is None


def test_the_ppo_surrogate_times_the_weights_by_hand():
    new = torch.log(torch.tensor([[0.5, 0.5]]))
    old = torch.log(torch.tensor([[0.5, 0.25]]))  # ratios 1 and 2: the second clipped at 1.2
    adv, mask, ent = torch.tensor([[1.0, 1.0]]), torch.ones(1, 2), torch.zeros(1, 2)
    terms = policy_terms(new, old, adv, ent, mask, 0.2, 0.0, normalise_advantages=False,
                         is_weights=torch.tensor([[2.0, 0.5]]))
    assert terms.policy.item() == pytest.approx(-(1.0 * 2.0 + 1.2 * 0.5) / 2)


def test_results_summarise_the_logged_mismatch():
    log = [{"iteration": 1, "mismatch/abs_mean": 0.1, "mismatch/abs_max": 0.5, "mismatch/kl": 0.01},
           {"iteration": 2, "mismatch/abs_mean": 0.3, "mismatch/abs_max": 0.4, "mismatch/kl": 0.03}, {"other": 1}]
    assert mismatch_results(log)["sampler_mismatch"] == pytest.approx(
        {"iterations": 2, "mean_abs_logp": 0.2, "max_abs_logp": 0.5, "mean_kl": 0.02, "final_abs_logp": 0.3,
         "final_kl": 0.03})
    assert mismatch_results([{"iteration": 1}]) == {}


# -- the trainer logs it ---------------------------------------------------------------------------------------
def ppo_trainer(policy, **overrides):
    from grue.data.sample import Sample

    cfg = config("reinforce_pp", 0, **{"model": {"value_model": "separate"}, **overrides})
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(PROMPTS)]
    return RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), ShareOfE(), samples,
                     Accelerator(cpu=True))


@pytest.mark.parametrize("algo", ["ppo", "grpo", "grpo_mask"])
def test_the_mismatch_is_exactly_zero_at_fp32_and_positive_under_bf16(tiny_causal_policy, algo):
    def stats_of(precision):
        torch.manual_seed(0)
        overrides = {"rollout": {"precision": precision, "top_k": 5}, "ppo": SHORT}
        trainer = (ppo_trainer(tiny_causal_policy, **overrides) if algo == "ppo"
                   else make_trainer(algo, tiny_causal_policy, config(algo, 0, **overrides)))
        return [trainer.step() for _ in range(2)]

    for line in stats_of("fp32"):
        assert (line["mismatch/abs_mean"], line["mismatch/abs_max"], line["mismatch/kl"]) == (0.0, 0.0, 0.0)
    for line in stats_of("bf16"):  # every iteration, after each update too (the copy is refreshed)
        assert line["mismatch/abs_mean"] > 0 and line["mismatch/kl"] > 0
        assert line["mismatch/abs_max"] >= line["mismatch/abs_mean"]


# -- the trainer applies the cap -----------------------------------------------------------------------------
def loss_of_one_update(trainer, exp):
    trainer._backward = lambda loss, share: None
    trainer.optimizer.step = lambda: None
    return trainer.update(exp)["loss/policy"]


def moved_sampler(exp, seed=0):
    """The sampler's log-probs moved by +-0.4 per token from the learner's, so weights spread around the cap."""
    gen = torch.Generator().manual_seed(seed)
    delta = (torch.rand(exp.rollout.logp.shape, generator=gen) - 0.5) * 0.8 * exp.rollout.valid
    exp.rollout.sampler_logp = exp.rollout.logp - delta
    return torch.exp(delta).clamp(max=CAP)


CAP = 1.2


@pytest.mark.parametrize("cap", [CAP, None])
def test_the_critic_free_update_multiplies_each_token_by_its_truncated_weight(tiny_causal_policy, cap):
    torch.manual_seed(0)
    trainer = make_trainer("grpo", tiny_causal_policy, config("grpo", 0, rollout={"precision": "bf16"},
                                                              ppo={**ONE_STEP, "tis_cap": cap}))
    exp = trainer.collect()
    weights = moved_sampler(exp)
    assert weights.max() == CAP and weights[exp.rollout.valid > 0].min() < 0.8
    got = loss_of_one_update(trainer, exp)
    # the policy has not moved before the loss: ratio 1, the objective is A per token
    plain = -(exp.advantages * exp.token_weight[:, None] * exp.rollout.valid)
    want = (plain * weights).sum().item() if cap is not None else plain.sum().item()
    other = plain.sum().item() if cap is not None else (plain * weights).sum().item()
    assert got == pytest.approx(want, rel=1e-3, abs=1e-6)
    assert got != pytest.approx(other, rel=1e-2, abs=1e-4)


def test_the_ppo_update_multiplies_each_token_by_its_truncated_weight(tiny_causal_policy):
    torch.manual_seed(0)
    trainer = ppo_trainer(tiny_causal_policy, rollout={"precision": "bf16"}, ppo={**ONE_STEP, "tis_cap": CAP})
    exp = trainer.collect()
    weights = moved_sampler(exp)
    got = loss_of_one_update(trainer, exp)  # `update` leaves the trained (rollout-normalised) advantages in exp
    valid = exp.rollout.valid
    want = -((exp.advantages * weights * valid).sum() / valid.sum()).item()
    ignored = -((exp.advantages * valid).sum() / valid.sum()).item()
    assert got == pytest.approx(want, rel=1e-3, abs=1e-6)
    assert got != pytest.approx(ignored, rel=1e-2, abs=1e-4)


def test_the_cap_changes_nothing_on_the_exact_path(tiny_causal_policy):
    losses = []
    for cap in (None, CAP):
        torch.manual_seed(0)
        trainer = make_trainer("grpo", tiny_causal_policy, config("grpo", 0, ppo={**ONE_STEP, "tis_cap": cap}))
        losses.append(loss_of_one_update(trainer, trainer.collect()))
    assert losses[0] == losses[1]


# -- the recompute serves a shared critic ---------------------------------------------------------------------
def test_a_shared_critic_reads_the_recomputes_hidden_states_instead_of_another_pass(tiny_causal_policy):
    torch.manual_seed(0)
    trainer = ppo_trainer(tiny_causal_policy, model={"value_model": "shared"}, rollout={"precision": "bf16"},
                          ppo=ONE_STEP)
    passes = []
    real = tiny_causal_policy.hidden_states
    tiny_causal_policy.hidden_states = lambda *a, **k: passes.append(1) or real(*a, **k)
    episodes = trainer.rollout_round(trainer._my_samples(8))
    assert episodes.rollout.learner_states is not None
    exp = trainer.advantages(episodes)
    assert passes == []  # the value pass was the recompute's
    with torch.no_grad():
        separate = trainer.value.values(tiny_causal_policy, exp.rollout, real(tiny_causal_policy.model, exp.rollout))
    assert torch.equal(exp.old_values, separate * exp.rollout.valid)
    # and the states are not carried into the update
    assert trainer.collect().rollout.learner_states is None


def test_results_json_carries_the_logged_mismatch(tmp_path):
    """results.json's optional keys come from the run's own logs (grue/rewards/learned/schedules.results_fields)."""
    import json

    from grue.rewards.learned.schedules import results_fields
    from grue.storage.run_layout import train_log

    path = train_log(tmp_path)
    path.parent.mkdir(parents=True)
    lines = [{"iteration": 1, "kl": 0.0, "kl_coef": 0.1, "tokens": 8, "episodes": 2, "mismatch/abs_mean": 0.25,
              "mismatch/abs_max": 1.5, "mismatch/kl": 0.04}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert results_fields(tmp_path)["sampler_mismatch"] == pytest.approx(
        {"iterations": 1, "mean_abs_logp": 0.25, "max_abs_logp": 1.5, "mean_kl": 0.04, "final_abs_logp": 0.25,
         "final_kl": 0.04})
