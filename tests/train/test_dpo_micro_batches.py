"""dpo.micro_batch_size scores a step's answers in parts and sums their gradients: the step's loss, statistics
and gradient equal the whole batch's (float rounding apart), each forward pass holds at most that many answers'
candidates, and the setting leaves the config hash alone (memory, not a result).

Tolerance: the parts' gradients are added in another order than one pass sums them, so entries agree within
1e-5 of their parameter's largest entry, and losses within 1e-6 (the chunked-loss tests' rule)."""
from __future__ import annotations

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from dpo_fixtures import praise_comparisons
from grue.config import load_config
from grue.config.identity import config_hash
from grue.config.schema import run_schema
from grue.policy.load import frozen_copy
from grue.train.offline.dpo import DPOTrainer


def config(path, **dpo):
    return OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "seed": 3, "rollout": {"max_new_tokens": 16},
        "dpo": {"comparisons": str(path), "beta": 0.1, "optimizer": "adamw", "learning_rate": 1e-3,
                "warmup_steps": 0, "batch_size": 6, "epochs": 2, "heldout": 0.25, **dpo}})


def two_steps(policy, path, initial, **dpo):
    """Each step's log line and the gradient it left, from the same initial weights; the rows of every pass."""
    policy.model.load_state_dict(initial)
    torch.manual_seed(0)
    trainer = DPOTrainer(config(path, **dpo), policy, frozen_copy(policy.model), Accelerator(cpu=True))
    trainer.prepare()
    rows, forward = [], policy.model.forward

    def counted(*args, **kwargs):
        rows.append(kwargs["input_ids"].shape[0] if "input_ids" in kwargs else args[0].shape[0])
        return forward(*args, **kwargs)

    policy.model.forward = counted
    lines, grads = [], []
    try:
        for _ in range(2):
            lines.append(trainer.train_step())
            grads.append({n: p.grad.clone() for n, p in policy.model.named_parameters() if p.grad is not None})
    finally:
        policy.model.forward = forward
    return lines, grads, rows


@pytest.mark.parametrize("fixture", ["tiny_causal_policy", "tiny_seq2seq_policy"])
def test_micro_batches_give_the_whole_batch_s_step(fixture, request, tmp_path):
    policy = request.getfixturevalue(fixture)
    path = praise_comparisons(tmp_path / "c.jsonl", 24, seed=1)
    initial = {k: v.clone() for k, v in policy.model.state_dict().items()}
    whole, whole_grads, whole_rows = two_steps(policy, path, initial)
    parts, part_grads, part_rows = two_steps(policy, path, initial, micro_batch_size=4)
    assert max(part_rows) < max(whole_rows) and len(part_rows) > len(whole_rows)  # smaller passes, more of them
    for got, want in zip(parts, whole):
        for key in ("loss", "accuracy", "reward_chosen", "reward_others", "margin", "grad_norm"):
            assert got[key] == pytest.approx(want[key], abs=1e-6, rel=1e-5), key
    assert whole[1]["loss"] != whole[0]["loss"]  # the second step moved: its equality is not 0 = 0
    for got, want in zip(part_grads, whole_grads):
        assert got.keys() == want.keys()
        for name in want:
            scale = want[name].abs().max().item()
            assert (got[name] - want[name]).abs().max().item() <= 1e-5 * max(scale, 1e-12), name


def test_the_micro_batch_size_is_not_part_of_the_run_s_identity():
    base = ["task=imdb", "profile=mini", "algo=dpo", "dpo.comparisons=auto"]
    assert config_hash(load_config(base)) == config_hash(load_config([*base, "dpo.micro_batch_size=2"]))
    assert config_hash(load_config(base)) != config_hash(load_config([*base, "dpo.batch_size=2"]))


def test_every_mini_dpo_cell_is_sized_for_a_laptop():
    """The mini profile is CPU-sized: its DPO passes 4 answers at a time, so every task's estimated peak stays under
    12 GiB; a whole step of 16 answers in one pass would need 10-28 GiB (ToTTo's 27.8), which a 24 GiB machine
    cannot hold. Unset by hand, the estimate says so."""
    from grue.commands.plan import estimate
    from tasks import task_names

    gib = 1024 ** 3
    for task in task_names():
        cfg = load_config([f"task={task}", "profile=mini", "algo=dpo"])
        assert cfg.dpo.micro_batch_size == 4, task
        assert estimate(cfg).peak < 12 * gib, task
    whole = load_config(["task=totto", "profile=mini", "algo=dpo", "dpo.micro_batch_size=null"])
    assert estimate(whole).peak > 24 * gib
