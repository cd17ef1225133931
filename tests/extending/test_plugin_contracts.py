"""What grue promises a plugin algorithm (docs/extending.md section 5), checked on the page's own worked
algorithm, REINFORCE with a moving-average baseline (tests/extending/doc_algorithm_fixtures.py writes it
out from the page):
- its setting changes what it trains (the loss), not only its config hash;
- its config group is hashed though its `reads` leaves it out;
- the update trains on the advantages it returns (no whitening behind its back);
- a task file naming it adds to its registry presets (PPO's, through `presets_from`) instead of replacing them;
- its declared iteration state survives a checkpoint: killed and resumed, it ends where a straight run ends.

Trainer-level runs on the tiny GPT-2: episodes of exactly 6 tokens, one round of 6 episodes an iteration.
"""
from __future__ import annotations

import copy

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from doc_algorithm_fixtures import doc_algorithm  # noqa: F401  (a fixture)
from grue.config import config_hash, load_config
from grue.config.schema import run_schema
from grue.data.sample import Sample
from grue.policy.load import frozen_copy
from grue.train.checkpoint import load_latest, save_checkpoint
from grue.train.registry import get_algorithm

PROMPTS = ["The film was", "dogs run in", "A tedious", "I", "Ein", "a b c", "so", "at last", "why", "it"]
L = 6  # every episode's length (min_new_tokens = max_new_tokens)
ITERATIONS = 3


class CharLength:
    """A reward that differs from round to round, so a moving average is not any round's mean."""
    name = "chars"

    def __call__(self, samples, generations):
        return [float(len(g)) for g in generations]


def settings(decay: float):
    return OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "algo": "average_baseline", "seed": 0, "average_baseline": {"decay": decay},
        "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": L, "max_new_tokens": L},
        "ppo": {"learning_rate": 1e-2, "total_steps": ITERATIONS * 6 * L, "steps_per_update": 6 * L,
                "batch_size": 18, "epochs": 2, "rollout_batch_size": 6},
        "kl": {"init_coef": 0.05, "target": 0.1}})


def trainer_for(initial_policy, decay: float = 0.9):
    """A trainer as a run builds one: the policy and its reference copies of the initial model."""
    policy = copy.deepcopy(initial_policy)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(PROMPTS)]
    trainer_class = get_algorithm("average_baseline").trainer_class()
    return trainer_class(settings(decay), policy, frozen_copy(policy.model), None, CharLength(), samples,
                         Accelerator(cpu=True))


def train(trainer, until: int = ITERATIONS) -> list[dict]:
    logs = []
    while trainer.iteration < until:
        logs.append(trainer.step())
    return logs


def test_its_setting_changes_the_loss_not_only_the_hash(doc_algorithm, tiny_causal_policy):
    """Round one's average is the round's mean whatever the decay; from round two on the decay weighs the
    old average against the new mean, and the loss (not only the hash) must see it. PPO's whitening of the
    advantages would erase exactly this: a shifted baseline whitens to the same advantages."""
    logs = {decay: train(trainer_for(tiny_causal_policy, decay), until=2) for decay in (0.9, 0.5)}
    assert logs[0.9][0]["reward_mean"] != logs[0.9][1]["reward_mean"]  # two rounds with different means
    assert logs[0.9][0]["loss/policy"] == logs[0.5][0]["loss/policy"]
    assert abs(logs[0.9][1]["loss/policy"] - logs[0.5][1]["loss/policy"]) > 1e-4


def test_the_update_trains_on_the_advantages_it_returns(doc_algorithm, tiny_causal_policy):
    trainer = trainer_for(tiny_causal_policy)
    train(trainer, until=1)
    exp = trainer.collect()
    returned = exp.advantages.clone()
    trainer.update(exp)
    assert torch.equal(exp.advantages, returned)
    valid = exp.rollout.valid > 0
    assert abs(returned[valid].mean().item()) > 1e-3  # not centred: whitening would have changed them


def test_its_group_is_hashed_though_reads_leaves_it_out(doc_algorithm):
    assert "average_baseline" not in get_algorithm("average_baseline").reads  # as the page registers it
    args = [f"task={doc_algorithm.task_file}", "profile=mini", "algo=average_baseline"]
    hashes = {config_hash(load_config([*args, f"average_baseline.decay={d}"])) for d in (0.9, 0.5)}
    assert len(hashes) == 2


def test_a_task_file_naming_it_adds_to_its_presets(doc_algorithm):
    """tone.yaml names it with a decay only: PPO's preset on that task still gives it the budget, learning
    rate, minibatches and regulariser PPO runs with (replacing them left the schema's defaults)."""
    def tone(algo):
        return load_config([f"task={doc_algorithm.task_file}", "profile=mini", f"algo={algo}"])

    ppo, mine = tone("ppo"), tone("average_baseline")
    assert mine.average_baseline.decay == 0.8
    assert mine.ppo == ppo.ppo and mine.kl == ppo.kl and mine.rollout == ppo.rollout
    assert mine.ppo.total_steps == 96  # the file's own PPO budget, under PPO's learning rate from imdb's preset


def test_it_resumes_exactly(doc_algorithm, tiny_causal_policy, tmp_path):
    straight = trainer_for(tiny_causal_policy)
    train(straight)
    killed = trainer_for(tiny_causal_policy)
    train(killed, until=1)
    save_checkpoint(tmp_path / "checkpoints", 1, killed.state_dict())
    resumed = trainer_for(tiny_causal_policy)  # a new process: the initial model, then the checkpoint
    resumed.load_state_dict(load_latest(tmp_path / "checkpoints"))
    train(resumed)
    assert resumed.reward_average == straight.reward_average
    want, got = straight.policy.model.state_dict(), resumed.policy.model.state_dict()
    assert all(torch.equal(want[name], got[name]) for name in want)
