"""Equal budgets by construction: every RL run stops at its generated-token budget (`ppo.total_steps`)
within one episode's length, whatever its group size (issue 40: rounds of whole groups made CommonGen
GRPO spend 4.5 % and 11 % more tokens than PPO).

The budget is the run's, not each iteration's: an iteration that overshoots (a round of whole groups)
makes the next one collect less, and the last iteration sizes its rounds as if every episode ran full
length, cutting its last group if it must (grue/train/rl/trainer.py `collect`,
grue/train/rl/critic_free.py `_my_samples`).
"""
from __future__ import annotations

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import run_schema
from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.registry import get_algorithm

PROMPTS = ["The film was", "dogs run in", "A tedious", "I", "Ein", "a b c", "so", "at last"]
HORIZON = 6  # every episode is exactly this long (min_new_tokens = max_new_tokens)


class Length:
    name = "length"

    def __call__(self, samples, generations):
        return [float(len(g)) for g in generations]


def config(algo: str, group: dict, steps: int = 40, iterations: int = 3):
    base = {"seed": 0, "model": {"value_model": "separate"},
            "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": HORIZON, "max_new_tokens": HORIZON},
            "ppo": {"learning_rate": 1e-3, "total_steps": steps * iterations, "steps_per_update": steps,
                    "batch_size": 24, "epochs": 1, "rollout_batch_size": 16},
            "kl": {"init_coef": 0.0, "target": None}}
    return OmegaConf.merge(OmegaConf.structured(run_schema()), base, {"algo": algo}, group)


def trainer_for(algo, policy, cfg):
    trainer_class = get_algorithm(algo).trainer_class()
    value = build_value(cfg, policy) if trainer_class.uses_critic else None
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(PROMPTS)]
    return trainer_class(cfg, policy, frozen_copy(policy.model), value, Length(), samples, Accelerator(cpu=True))


def spend(trainer):
    tokens = []
    while trainer.iteration < trainer.n_iters:
        tokens.append(trainer.step()["tokens"])
    return tokens


@pytest.mark.parametrize("algo, group, size", [("grpo", {"grpo": {"group_size": 3}}, 3),
                                               ("grpo", {"grpo": {"group_size": 4}}, 4),
                                               ("rloo", {"rloo": {"k": 3}}, 3),
                                               ("reinforce_pp_baseline", {"reinforce_pp_baseline": {"group_size": 4}}, 4),
                                               ("ppo", {}, 1)])
def test_a_run_stops_at_its_token_budget_whatever_its_group_size(tiny_causal_policy, algo, group, size):
    """40 tokens an iteration are 6.7 episodes of 6 tokens: a round of whole groups of 3 or 4 holds 8 or 9
    episodes (48 or 54 tokens), so three iterations of whole-group rounds would spend 144 or 162 tokens of
    a 120-token budget (+20 %, +35 %)."""
    torch.manual_seed(0)
    trainer = trainer_for(algo, tiny_causal_policy, config(algo, group))
    tokens = spend(trainer)
    assert len(tokens) == 3 and 40 % (size * HORIZON) != 0 or size == 1
    assert 120 <= sum(tokens) < 120 + HORIZON, tokens  # within one episode of the budget
    assert trainer.tokens_spent == sum(tokens)


def test_the_last_group_is_cut_to_the_episodes_the_budget_has_left(tiny_causal_policy):
    """G = 4: iterations 1 and 2 take two whole groups (48 tokens each, 96 of the 120); the last has 24
    tokens left, exactly one group of 4. With 2 iterations of 65 tokens, the first takes 3 whole groups (72
    tokens) and the last has 58 left: a round of 9 episodes (two groups of 4 and a group of one), then 4
    tokens left, one more episode: 132 tokens. A group of one has advantage 0 (no other sample to compare
    with)."""
    torch.manual_seed(0)
    trainer = trainer_for("grpo", tiny_causal_policy, config("grpo", {"grpo": {"group_size": 4}}, steps=40))
    assert spend(trainer) == [48, 48, 24]
    cfg = config("grpo", {"grpo": {"group_size": 4}}, steps=65, iterations=2)
    trainer = trainer_for("grpo", tiny_causal_policy, cfg)
    trainer.step()  # 65 tokens due: 11 episodes asked, 3 whole groups, 72 tokens
    assert trainer.tokens_spent == 72
    exp = trainer.collect()  # the last iteration
    assert trainer.round_groups == [1] and exp.rollout.valid.sum().item() == 10 * HORIZON
    assert trainer.tokens_spent == 132 < 130 + HORIZON
    assert exp.advantages[8:].abs().sum().item() == 0.0 and exp.advantages[:8].abs().sum().item() > 0


def test_a_cut_group_is_normalised_over_the_samples_it_holds():
    from grue.train.rl.grpo import GRPOTrainer
    from grue.train.rl.policy_gradient import group_normalised, leave_one_out

    trainer = object.__new__(GRPOTrainer)
    trainer.cfg = OmegaConf.create({"grpo": {"group_size": 3}})
    rewards = torch.tensor([1.0, 2.0, 4.0, 0.0, 3.0])
    trainer.round_groups = [3, 2]
    got = trainer.by_group(group_normalised, rewards)
    assert got[:3].tolist() == pytest.approx(group_normalised(rewards[:3], 3).tolist())
    assert got[3:].tolist() == pytest.approx(group_normalised(rewards[3:], 2).tolist())
    assert trainer.by_group(leave_one_out, rewards)[3:].tolist() == pytest.approx([-3.0, 3.0])
    trainer.round_groups = [3, 1, 1]  # never made, but a layout that does not match falls back to whole groups
    with pytest.raises(ValueError):
        trainer.by_group(group_normalised, rewards)


def test_the_tokens_spent_survive_a_resume(tiny_causal_policy):
    torch.manual_seed(0)
    cfg = config("grpo", {"grpo": {"group_size": 4}})
    trainer = trainer_for("grpo", tiny_causal_policy, cfg)
    trainer.step()
    state = trainer.state_dict()
    again = trainer_for("grpo", tiny_causal_policy, cfg)
    again.load_state_dict(state)
    assert again.tokens_spent == trainer.tokens_spent == 48
    older = {k: v for k, v in state.items() if k != "tokens_spent"}  # a checkpoint from before the budget
    again.load_state_dict(older)
    assert again.tokens_spent == 40
