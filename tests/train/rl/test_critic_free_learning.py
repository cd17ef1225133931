"""The critic-free methods sample in whole groups and actually learn.

Learning signal: a 2-layer GPT-2 learns to write the letter "e" (reward: share of e's in the decoded
4-token generation). Each method, at 4 samples per prompt where it groups, with the same budget (25
iterations of 64 generated tokens, 4 epochs of 4 minibatches, learning rate 3e-3, no KL penalty in the
reward, for GRPO too: every method reads the shared `kl` group) must raise the mean reward of its last 3
iterations by at least 0.1 over its first 3, on each of seeds 0, 1 and 2. The starting share is about
0.05-0.08; the gains measured when this was written: GRPO 0.13-0.21 (the slowest: its std division
and, then, the paper's k3 KL term in the loss at beta 0.04, which GRPO no longer runs here), RLOO 0.34-0.84, REINFORCE++ 0.37-0.68, REINFORCE++-baseline 0.32-0.42.
"""
from __future__ import annotations

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import run_schema
from grue.data.sample import Sample
from grue.policy.load import frozen_copy
from grue.train.registry import get_algorithm

PROMPTS = ["The film was", "dogs run in", "A tedious", "I"]
GROUPS = {"grpo": {"grpo": {"group_size": 4}}, "rloo": {"rloo": {"k": 4}}, "reinforce_pp": {},
          "reinforce_pp_baseline": {"reinforce_pp_baseline": {"group_size": 4}}}


class ShareOfE:
    name = "e_share"

    def __call__(self, samples, generations):
        return [sum(c == "e" for c in g) / max(1, len(g)) for g in generations]


def config(algo: str, seed: int, **overrides):
    base = {"seed": seed,
            "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": 4, "max_new_tokens": 4},
            "ppo": {"learning_rate": 3e-3, "total_steps": 64 * 40, "steps_per_update": 64, "batch_size": 16,
                    "epochs": 4, "rollout_batch_size": 16},
            "kl": {"init_coef": 0.0, "target": None},
            "nlpo": {"top_p": 0.9, "min_tokens_to_keep": 5, "update_every": 2}}
    return OmegaConf.merge(OmegaConf.structured(run_schema()), base, GROUPS[algo.removesuffix("_mask")], overrides)


def make_trainer(algo: str, policy, cfg, prompts=PROMPTS):
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(prompts)]
    return get_algorithm(algo).trainer_class()(cfg, policy, frozen_copy(policy.model), None, ShareOfE(), samples,
                                               Accelerator(cpu=True))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("algo", ["grpo", "rloo", "reinforce_pp", "reinforce_pp_baseline"])
def test_each_method_raises_a_terminal_reward_within_the_budget(tiny_causal_policy, algo, seed):
    torch.manual_seed(seed)
    trainer = make_trainer(algo, tiny_causal_policy, config(algo, seed))
    rewards = [trainer.step()["reward_mean"] for _ in range(25)]
    before, after = sum(rewards[:3]) / 3, sum(rewards[-3:]) / 3
    assert after > before + 0.1, (algo, seed, rewards)


def test_grpo_learns_through_the_nlpo_mask(tiny_causal_policy):
    torch.manual_seed(0)
    trainer = make_trainer("grpo_mask", tiny_causal_policy, config("grpo_mask", 0))
    stats = [trainer.step() for _ in range(25)]
    rewards = [s["reward_mean"] for s in stats]
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.1, rewards
    assert all("nlpo/mask_bound_fraction" in s for s in stats)  # the mask's hooks ran
    assert all(s["loss/value"] == 0.0 for s in stats)          # and no critic came with them


def test_a_round_holds_whole_groups_and_the_loss_weights_cover_the_rollout(tiny_causal_policy):
    """Generations of 1-6 tokens: the first round guesses full-length episodes, later rounds top up.
    Every round is whole groups of consecutive samples of one prompt; the loss weights of all valid
    tokens add up to one objective per minibatch."""
    cfg = config("grpo", 0, rollout={"min_new_tokens": 1, "max_new_tokens": 6},
                 ppo={"steps_per_update": 40, "batch_size": 10, "rollout_batch_size": 4},
                 grpo={"group_size": 3})
    torch.manual_seed(0)
    trainer = make_trainer("grpo", tiny_causal_policy, cfg, prompts=PROMPTS + ["Ein", "a b c"])
    exp = trainer.collect()
    episodes = exp.rollout.actions.shape[0]
    assert episodes % 3 == 0 and exp.rollout.valid.sum() >= 40
    ids, mask = exp.rollout.prompts.input_ids, exp.rollout.prompts.attention_mask
    prompts = [tuple(i for i, m in zip(row.tolist(), keep.tolist()) if m) for row, keep in zip(ids, mask)]
    groups = [prompts[i:i + 3] for i in range(0, episodes, 3)]
    assert all(len(set(group)) == 1 for group in groups), groups
    trainer.update(exp)
    parts = -(-int(exp.rollout.valid.sum().item()) // 10)
    total = (exp.token_weight[:, None] * exp.rollout.valid).sum().item()
    assert total == pytest.approx(parts)  # sequence means: sum_i |o_i| / (N |o_i|) = 1, times the minibatches


@pytest.mark.parametrize("algo", ["grpo", "rloo", "reinforce_pp"])
def test_a_seq2seq_policy_learns_too(tiny_seq2seq_policy, algo):
    """The same problem and threshold on the 2-layer T5 (the seq2seq tasks' policy kind), seed 0; measured
    gains 0.27 (GRPO), 0.30 (RLOO), 0.40 (REINFORCE++). REINFORCE++-baseline, which differs from
    REINFORCE++ only in its baseline, gained 0.13 here: too close to the threshold to pin."""
    torch.manual_seed(0)
    trainer = make_trainer(algo, tiny_seq2seq_policy, config(algo, 0))
    rewards = [trainer.step()["reward_mean"] for _ in range(25)]
    assert sum(rewards[-3:]) / 3 > sum(rewards[:3]) / 3 + 0.1, rewards


@pytest.mark.parametrize("aggregation", ["sequence", "constant"])
def test_minibatch_gradients_add_up_to_the_whole_rollout_s(tiny_causal_policy, aggregation):
    """Before any step (ratio 1), the gradients of an epoch's minibatches, each the loss update() builds
    (its share of the objective times the number of minibatches), average to the gradient of the whole
    objective in one batch: cutting minibatches, even through a sequence, weighs no token differently."""
    from grue.train.rl.minibatch import transition_minibatches
    from grue.train.rl.policy_gradient import episode_weights

    cfg = config("grpo", 0, rollout={"min_new_tokens": 1, "max_new_tokens": 6},
                 grpo={"group_size": 2, "loss_aggregation": aggregation})
    torch.manual_seed(0)
    trainer = make_trainer("grpo", tiny_causal_policy, cfg)
    exp = trainer.collect()
    valid = exp.rollout.valid
    valid[1::3, 2:] = 0.0  # episodes of 2 and 4 tokens beside the 6-token ones, as if they had ended (EOS)
    valid[2::3, 4:] = 0.0
    base = episode_weights(valid, aggregation, valid.shape[0], valid.sum().item(), 6)
    params = [p for p in tiny_causal_policy.model.parameters()]

    def gradient(parts):
        exp.token_weight = base * parts
        total = [torch.zeros_like(p) for p in params]
        for batch in transition_minibatches(valid, parts, torch.Generator().manual_seed(1)):
            trainer._backward_minibatch(exp.episodes(batch.rows, batch.length), batch.selected, None)
            for acc, p in zip(total, params):
                acc += p.grad / parts if p.grad is not None else 0.0
            trainer.optimizer.zero_grad(set_to_none=True)
        return torch.cat([g.flatten() for g in total])

    whole, split = gradient(1), gradient(3)
    assert whole.abs().sum() > 0
    assert torch.allclose(whole, split, rtol=1e-4, atol=1e-7)
