"""Supervised batches keep their targets: prompt and target have their own limits, and the prompt is
cut on the task's truncation side exactly as RL and evaluation cut it."""
import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.train.supervised.trainer import SupervisedTrainer, supervised_batch, target_tokens

REVIEW = "The film was a delight from start to finish. " * 6        # far longer than the prompt limit
CONTINUATION = "I highly recommend this movie to everyone!"


def ids(tokenizer, text):
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def test_a_long_prompt_keeps_its_whole_target_and_is_cut_like_the_rl_prompt(tiny_causal_policy):
    policy = tiny_causal_policy                                     # max_prompt_length 16, truncation left
    batch = supervised_batch(policy, [(REVIEW, CONTINUATION)], max_length=16)
    target = ids(policy.tokenizer, CONTINUATION)
    assert len(ids(policy.tokenizer, REVIEW)) > 16 > len(target)       # one cap of 16 on both: no target left
    assert target_tokens(batch, causal=True) == len(target)
    labels = batch["labels"][0]
    prompt_part = batch["input_ids"][0][labels == -100].tolist()
    assert prompt_part == policy.encode([REVIEW]).input_ids[0].tolist()  # the very prompt RL would see
    assert labels[labels != -100].tolist() == target


@pytest.mark.parametrize("side", ["left", "right"])
def test_the_prompt_is_cut_on_the_tasks_truncation_side(tiny_causal_policy, side):
    policy = tiny_causal_policy
    policy.tokenizer.truncation_side = side
    try:
        batch = supervised_batch(policy, [(REVIEW, CONTINUATION)], max_length=4)
    finally:
        policy.tokenizer.truncation_side = "left"
    prompt = ids(policy.tokenizer, REVIEW)
    kept = batch["input_ids"][0][batch["labels"][0] == -100].tolist()
    assert kept == (prompt[-16:] if side == "left" else prompt[:16])
    assert target_tokens(batch, causal=True) == 4                    # the target's first 4 tokens


def test_an_epoch_reports_the_target_tokens_it_trained_on(tiny_causal_policy):
    cfg = OmegaConf.merge(OmegaConf.structured(RunConfig),
                          {"supervised": {"batch_size": 2, "epochs": 1, "max_length": 5}})
    pairs = [(REVIEW, CONTINUATION), (REVIEW[:40], "dogs run in the park"), ("I", "A tedious, boring mess")]
    trainer = SupervisedTrainer(cfg, tiny_causal_policy, pairs, Accelerator(cpu=True))
    trainer.train_epoch()
    expected = sum(min(5, len(ids(tiny_causal_policy.tokenizer, t))) for _, t in pairs)
    assert trainer.target_tokens == expected > 0
