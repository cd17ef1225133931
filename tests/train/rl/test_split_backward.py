"""With a separate critic the update back-propagates the policy's terms before the critic's forward
(to free the policy's activations first). The gradients and logged losses must be exactly those of one
backward of the summed loss."""
import pytest
import torch
from accelerate import Accelerator

from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.ppo_loss import ppo_loss
from grue.train.rl.trainer import RLTrainer
from tests.train.rl.test_learning import TokenCountReward, tiny_cfg


def gradients_of_one_minibatch(trainer, exp, policy_first: bool):
    """Every trainable parameter's gradient after one minibatch, with the split on or off."""
    trainer._policy_backward_first = lambda: policy_first
    trainer.optimizer.zero_grad(set_to_none=True)
    batch = trainer_batches(trainer, exp)[0]
    mb = exp.episodes(batch.rows, batch.length)
    losses = trainer._backward_minibatch(mb, batch.selected, share=None)
    params = [p for g in trainer.optimizer.param_groups for p in g["params"]]
    grads = [p.grad.clone() if p.grad is not None else None for p in params]
    return grads, losses, mb, batch


def trainer_batches(trainer, exp):
    from grue.train.rl.minibatch import MINIBATCHES

    return MINIBATCHES[trainer.cfg.ppo.minibatch](exp.rollout.valid, 2, torch.Generator().manual_seed(0))


@pytest.mark.parametrize("ent_coef,normalise", [(0.0, "rollout"), (0.05, "minibatch")])
def test_policy_first_backward_gives_the_summed_loss_gradients_bit_for_bit(tiny_causal_policy, ent_coef, normalise):
    cfg = tiny_cfg(rollout={"min_new_tokens": 5, "max_new_tokens": 5},
                   ppo={"steps_per_update": 40, "batch_size": 20, "rollout_batch_size": 8, "ent_coef": ent_coef,
                        "normalise_advantages": normalise, "vf_coef": 0.5})
    policy = tiny_causal_policy
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious"])]
    trainer = RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                        samples, Accelerator(cpu=True))
    assert trainer._policy_backward_first()  # a separate critic, one process: the split path is the default
    torch.manual_seed(1)
    exp = trainer.collect()
    exp.advantages = trainer._normalised_advantages(exp)
    split, split_losses, mb, batch = gradients_of_one_minibatch(trainer, exp, policy_first=True)
    summed, summed_losses, _, _ = gradients_of_one_minibatch(trainer, exp, policy_first=False)
    assert sum(g is not None for g in split) == len(split)   # policy and critic parameters all got gradients
    for a, b in zip(split, summed):
        assert torch.equal(a, b)
    for key in ("total", "policy", "value", "entropy", "approx_kl", "clip_fraction"):
        assert torch.equal(getattr(split_losses, key), getattr(summed_losses, key)), key
    # and both are ppo_loss of the same inputs (the objective itself is unchanged)
    with torch.no_grad():
        new_logp, logp_all, _ = policy.log_probs(policy.model, mb.rollout)
        from grue.policy.masking import entropy

        values = trainer.value.values(policy, mb.rollout)
        ref = ppo_loss(new_logp, mb.rollout.logp, mb.advantages, values, mb.returns, entropy(logp_all),
                       batch.selected, cfg.ppo.clip_range, cfg.ppo.vf_coef, cfg.ppo.ent_coef,
                       normalise_advantages=normalise == "minibatch")
    assert torch.allclose(ref.total, split_losses.total, atol=1e-6)
