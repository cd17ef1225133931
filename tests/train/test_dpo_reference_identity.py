"""DPO is itself at the trainer level: its first step's loss is the Plackett-Luce loss of the implicit rewards
beta (log pi - log pi_ref) under the reference the trainer was given (issue 40), so a trainer that dropped
the reference (implicit rewards beta log pi) or scored it with the policy being trained fails here."""
from __future__ import annotations

import math

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from dpo_fixtures import praise_comparisons
from grue.config.schema import run_schema
from grue.policy.load import frozen_copy
from grue.train.offline.dpo import DPOTrainer
from grue.train.offline.dpo_loss import dpo_loss


def test_dpo_s_first_step_scores_against_the_reference_it_was_given(tiny_causal_policy, tmp_path):
    path = praise_comparisons(tmp_path / "c.jsonl", 12, seed=1)
    cfg = OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "seed": 3, "rollout": {"max_new_tokens": 16},
        "dpo": {"comparisons": str(path), "beta": 0.5, "optimizer": "adamw", "learning_rate": 1e-3,
                "warmup_steps": 0, "batch_size": 6, "epochs": 1, "heldout": 0.0}})
    policy = tiny_causal_policy
    same_as_policy = frozen_copy(policy.model)
    trainer = DPOTrainer(cfg, policy, same_as_policy, Accelerator(cpu=True))
    # the reference is the initial policy: every implicit reward is 0, so the 4-way first choice is 1/4
    assert trainer.train_step()["loss"] == pytest.approx(math.log(4), abs=1e-5)

    reference = frozen_copy(policy.model)
    with torch.no_grad():
        for p in reference.parameters():
            p.add_(0.05 * torch.randn_like(p))
    trainer = DPOTrainer(cfg, policy, reference, Accelerator(cpu=True))
    first = torch.randperm(len(trainer.train), generator=trainer._order_generator()).tolist()[:6]
    batch = [trainer.train[i] for i in first]
    with torch.no_grad():
        mine, present = trainer._log_probs(policy.model, batch)
        ref, _ = trainer._log_probs(reference, batch)
    order = torch.tensor([list(p.order) + list(range(len(p.order), 4)) for p in batch])
    observed = torch.tensor([p.observed for p in batch])
    want = dpo_loss(mine, ref, order, observed, 0.5, present).loss.item()
    assert abs(want - math.log(4)) > 1e-3  # this reference differs from the policy
    assert trainer.train_step()["loss"] == pytest.approx(want, abs=1e-5)
