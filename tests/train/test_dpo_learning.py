"""DPO learns the labeler's preference on a small problem, for decoder-only and encoder-decoder policies.

Learning signal: 48 answered 4-way queries whose chosen candidate always praises a film (one of two praising
sentences among three others, in a random place); a quarter of the queries is held out by the reward
models' hash rule. With beta 0.1, AdamW at 1e-3 and batches of 8, 3 epochs (15 steps) must take the implicit
reward's held-out accuracy (the chosen candidate scores strictly highest) from 0 (untrained, every score is
0: a tie, counted as a miss) to at least 0.9, with a mean margin of at least 0.3, on each of seeds 0, 1 and 2.
Measured when this was written: held-out accuracy 1.0 on every seed, margins 1.51-1.64 (causal, seeds 0-2) and
3.55 (T5, seed 0); the training loss fell from log 4 = 1.386 to 0.53-0.56 (causal) and 0.12 (T5).
"""
from __future__ import annotations

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from dpo_fixtures import praise_comparisons
from grue.config.schema import run_schema
from grue.policy.load import frozen_copy
from grue.train.offline.dpo import DPOTrainer, candidate_log_probs


def config(path, seed: int):
    return OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "seed": seed, "rollout": {"max_new_tokens": 16},
        "dpo": {"comparisons": str(path), "beta": 0.1, "optimizer": "adamw", "learning_rate": 1e-3,
                "warmup_steps": 0, "batch_size": 8, "epochs": 3, "heldout": 0.25}})


def train(policy, path, seed: int) -> tuple[DPOTrainer, list[dict]]:
    torch.manual_seed(seed)
    trainer = DPOTrainer(config(path, seed), policy, frozen_copy(policy.model), Accelerator(cpu=True))
    assert trainer.heldout_stats()["heldout_accuracy"] == 0.0  # untrained: policy = reference, every score ties
    logs = [trainer.train_step() for _ in range(trainer.total_steps)]
    return trainer, logs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_causal_policy_learns_to_prefer_the_chosen_answers(tiny_causal_policy, tmp_path, seed):
    path = praise_comparisons(tmp_path / "c.jsonl", 48, seed=seed)
    trainer, logs = train(tiny_causal_policy, path, seed)
    assert trainer.total_steps == 15 and len(trainer.heldout) >= 8
    held = trainer.heldout_stats()
    assert held["heldout_accuracy"] >= 0.9 and held["heldout_margin"] >= 0.3, (held, logs[-1])
    assert logs[-1]["loss"] < logs[0]["loss"]


def test_an_encoder_decoder_policy_learns_it_too(tiny_seq2seq_policy, tmp_path):
    path = praise_comparisons(tmp_path / "c.jsonl", 48, seed=0)
    trainer, logs = train(tiny_seq2seq_policy, path, 0)
    held = trainer.heldout_stats()
    assert held["heldout_accuracy"] >= 0.9 and held["heldout_margin"] >= 0.3, (held, logs[-1])


def test_candidate_log_probs_sum_the_tokens_of_the_text_after_the_prompt(tiny_causal_policy):
    policy = tiny_causal_policy
    prompt, text = "The film was", " a delight"
    got = candidate_log_probs(policy, policy.model, [prompt], [text], max_length=16)
    p = policy.tokenizer(prompt, add_special_tokens=False)["input_ids"]
    t = policy.tokenizer(text, add_special_tokens=False)["input_ids"]
    logits = policy.model(torch.tensor([p + t])).logits[0].log_softmax(-1)
    expected = sum(logits[len(p) - 1 + i, tok] for i, tok in enumerate(t))  # position j predicts token j + 1
    assert got.item() == pytest.approx(expected.item(), abs=1e-4)
    cut = candidate_log_probs(policy, policy.model, [prompt], [text], max_length=1)
    assert cut.item() == pytest.approx(logits[len(p) - 1, t[0]].item(), abs=1e-4)  # only the first token
