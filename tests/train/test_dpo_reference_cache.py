"""DPO's reference log-probs are scored once (grue/train/offline/reference.py) and give the loss the recomputing
trainer gave: the same losses and gradients step after step, the same held-out statistics, one reference
pass per candidate in all, and a max_steps run scoring only the answers its steps read.

Tolerance: the cached values come from other batches (chunks in file order, not the step's seeded batch), so
they can differ from a step's own reference pass by float rounding only: losses within 1e-5, every gradient
entry within 1e-5 of its parameter's largest entry (the chunked-loss tests' rule).
"""
from __future__ import annotations

import functools

import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from dpo_fixtures import praise_comparisons
from grue.config.schema import run_schema
from grue.policy.load import frozen_copy
from grue.train.offline.dpo import DPOTrainer
from grue.train.offline.preferences import Preference
from grue.train.offline.reference import reference_matrix, with_reference


def config(path, **dpo):
    return OmegaConf.merge(OmegaConf.structured(run_schema()), {
        "seed": 3, "rollout": {"max_new_tokens": 16},
        "dpo": {"comparisons": str(path), "beta": 0.1, "optimizer": "adamw", "learning_rate": 1e-3,
                "warmup_steps": 0, "batch_size": 6, "epochs": 2, "heldout": 0.25, **dpo}})


class Recomputing(DPOTrainer):
    """The trainer as it was before the cache: the reference scores each step's batch again."""

    def _cache_reference(self, split):
        return None

    def _reference_log_probs(self, batch, like):
        with torch.no_grad():
            return self._log_probs(self.ref_model, batch)[0]


def counting_rows(model):
    """Counts the rows (candidates) every forward pass of `model` scores."""
    calls = []
    forward = model.forward

    @functools.wraps(forward)
    def counted(*args, **kwargs):
        calls.append(kwargs["input_ids"].shape[0] if "input_ids" in kwargs else args[0].shape[0])
        return forward(*args, **kwargs)

    model.forward = counted
    return calls


def run_steps(trainer_class, policy, path, steps):
    """Losses, gradients after each step and the final held-out statistics, from the same initial weights."""
    torch.manual_seed(0)
    trainer = trainer_class(config(path), policy, frozen_copy(policy.model), Accelerator(cpu=True))
    losses, grads = [], []
    for _ in range(steps):
        losses.append(trainer.train_step()["loss"])
        grads.append({n: p.grad.clone() for n, p in policy.model.named_parameters() if p.grad is not None})
    return trainer, losses, grads, trainer.heldout_stats()


@pytest.mark.parametrize("fixture", ["tiny_causal_policy", "tiny_seq2seq_policy"])
def test_the_cached_reference_gives_the_recomputed_loss_gradients_and_heldout_stats(fixture, request, tmp_path):
    policy = request.getfixturevalue(fixture)
    path = praise_comparisons(tmp_path / "c.jsonl", 24, seed=1)
    initial = {k: v.clone() for k, v in policy.model.state_dict().items()}
    _, slow_losses, slow_grads, slow_held = run_steps(Recomputing, policy, path, 5)
    policy.model.load_state_dict(initial)
    trainer, losses, grads, held = run_steps(DPOTrainer, policy, path, 5)
    assert len(trainer.train) == 21 and trainer.steps_per_epoch == 4  # step 5 reads a second seeded order
    assert losses == pytest.approx(slow_losses, abs=1e-5)
    assert slow_losses[-1] < slow_losses[0] - 0.05  # the policy moved away from the reference (not a 0 = 0 check)
    for step, (got, want) in enumerate(zip(grads, slow_grads)):
        assert got.keys() == want.keys()
        for name in want:
            scale = want[name].abs().max().item()
            assert (got[name] - want[name]).abs().max().item() <= 1e-5 * max(scale, 1e-12), (step, name)
    # held-out answers cached after training, from the reference: a cache filled from the trained policy
    # would give every margin ~0 here
    assert held == pytest.approx(slow_held, abs=1e-5) and abs(held["heldout_margin"]) > 1e-3


def test_the_reference_scores_each_candidate_once_in_all(tiny_causal_policy, tmp_path):
    path = praise_comparisons(tmp_path / "c.jsonl", 24, seed=1)
    trainer = DPOTrainer(config(path, epochs=3), tiny_causal_policy, frozen_copy(tiny_causal_policy.model),
                         Accelerator(cpu=True))
    calls = counting_rows(trainer.ref_model)
    logs = [trainer.train_step() for _ in range(trainer.total_steps)]
    trainer.heldout_stats(), trainer.heldout_stats()
    candidates = 4 * (len(trainer.train) + len(trainer.heldout))
    assert trainer.total_steps == 12 and candidates == 96
    assert sum(calls) == candidates  # 3 epochs and 2 held-out evaluations, each candidate scored once
    assert "reference_seconds" in logs[0] and not any("reference_seconds" in line for line in logs[1:])
    assert logs[0]["seconds"] >= logs[0]["reference_seconds"] > 0
    slow = Recomputing(config(path, epochs=3), tiny_causal_policy, frozen_copy(tiny_causal_policy.model),
                       Accelerator(cpu=True))
    slow_calls = counting_rows(slow.ref_model)
    slow.train_step()
    assert sum(slow_calls) == 4 * 6  # what the cache saves: the old trainer scored each step's batch again


def test_prepare_scores_before_the_first_step_which_still_reports_it(tiny_causal_policy, tmp_path):
    """The preference loop calls prepare() before its bar opens (its time-left estimate reads the steps only);
    the scoring is done once and still counted in the first step's seconds, as when the step does it."""
    path = praise_comparisons(tmp_path / "c.jsonl", 24, seed=1)
    trainer = DPOTrainer(config(path), tiny_causal_policy, frozen_copy(tiny_causal_policy.model), Accelerator(cpu=True))
    calls = counting_rows(trainer.ref_model)
    trainer.prepare()
    assert sum(calls) == 4 * len(trainer.train)  # every training candidate, before any step
    scoring = trainer._prepared_s
    logs = [trainer.train_step() for _ in range(2)]
    assert sum(calls) == 4 * len(trainer.train)  # not again
    assert logs[0]["reference_seconds"] == scoring and logs[0]["seconds"] >= scoring > 0
    assert "reference_seconds" not in logs[1]


def test_a_run_stopped_by_max_steps_scores_only_the_answers_its_steps_read(tiny_causal_policy, tmp_path):
    path = praise_comparisons(tmp_path / "c.jsonl", 24, seed=1)
    trainer = DPOTrainer(config(path, max_steps=2), tiny_causal_policy, frozen_copy(tiny_causal_policy.model),
                         Accelerator(cpu=True))
    calls = counting_rows(trainer.ref_model)
    read = []
    real_next = trainer._next_batch

    def recording():
        batch = real_next()
        read.extend(p.query_id for p in batch)
        return batch

    trainer._next_batch = recording
    for _ in range(trainer.total_steps):
        trainer.train_step()
    assert trainer.total_steps == 2 and trainer.epoch_done  # stopped mid-epoch: the held-out answers are due
    cached = {p.query_id for p in trainer.train if p.reference is not None}
    assert cached == set(read) and len(read) == 12 and sum(calls) == 4 * 12


def test_with_reference_writes_each_answer_s_values_in_place_and_sums_ranks_exactly():
    def pref(i, k):
        return Preference(f"q{i}", f"p{i}", tuple(f"c{j}" for j in range(k)), tuple(range(k)), 1)

    prefs = [pref(0, 2), pref(1, 3), pref(2, 2), pref(3, 3)]
    seen = []

    def score(batch):  # log-prob = -(10 * query + candidate + 1), 0 in absent slots, as the trainer's scorer
        seen.append([p.query_id for p in batch])
        k = max(len(p.candidates) for p in batch)
        present = torch.tensor([[j < len(p.candidates) for j in range(k)] for p in batch])
        values = torch.tensor([[-(10.0 * int(p.query_id[1:]) + j + 1) for j in range(k)] for p in batch])
        return values * present, present

    out = with_reference(prefs, [3, 1, 2], score, chunk=2)
    assert seen == [["q1", "q2"], ["q3"]]  # file order, chunks of 2, the unwanted q0 never scored
    assert [p.reference for p in out] == [None, (-11.0, -12.0, -13.0), (-21.0, -22.0), (-31.0, -32.0, -33.0)]
    assert out[1] == prefs[1]  # the cache is not part of an answer's identity
    matrix = reference_matrix([out[2], out[1]], torch.zeros(2, 3))
    assert matrix.tolist() == [[-21.0, -22.0, 0.0], [-11.0, -12.0, -13.0]]  # absent slots 0, as scoring gives them
    with pytest.raises(RuntimeError, match="no cached reference log-probs for \\['q0'\\]"):
        reference_matrix([out[0]], torch.zeros(1, 2))
    # two ranks: each scores every other chunk and zeros elsewhere; the sum gives both all values
    import grue.train.offline.reference as reference

    halves = {}
    real_sum = reference.global_sum
    for rank in (0, 1):
        seen.clear()
        reference.global_sum = lambda values, world: halves.setdefault(rank, list(values))
        try:
            with_reference(prefs, [0, 1, 2, 3], score, chunk=1, rank=rank, world=2)
        finally:
            reference.global_sum = real_sum
        assert seen == [[f"q{rank}"], [f"q{rank + 2}"]]
    summed = [a + b for a, b in zip(halves[0], halves[1])]
    assert summed == [-1.0, -2.0, -11.0, -12.0, -13.0, -21.0, -22.0, -31.0, -32.0, -33.0]


def test_scoring_the_reference_says_its_progress_by_tenths_before_the_first_step(tiny_causal_policy, tmp_path):
    """The first step scores every answer the run will read (minutes for a thousand on a CPU) before the run's
    bar moves: the trainer says how far it has got, ending at the number it scores."""
    path = praise_comparisons(tmp_path / "c.jsonl", 24, seed=1)
    said = []
    trainer = DPOTrainer(config(path, batch_size=2), tiny_causal_policy, frozen_copy(tiny_causal_policy.model),
                         Accelerator(cpu=True))
    trainer.say = said.append  # as grue/train/offline/loop.py sets it to the run's
    trainer.train_step()
    lines = [line for line in said if line.startswith("scoring the train answers under the reference: ")]
    counts = [int(line.rsplit(": ", 1)[1].split("/")[0]) for line in lines]
    assert counts == sorted(counts) and len(counts) == len(set(counts)) >= 5  # 21 answers in chunks of 2
    assert lines[-1].endswith(f": {len(trainer.train)}/{len(trainer.train)}")
    trainer.train_step()
    assert len([line for line in said if line.startswith("scoring the train")]) == len(lines)  # once per run
