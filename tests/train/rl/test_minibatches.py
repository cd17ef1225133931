"""PPO minibatches are transitions drawn from the whole flattened rollout (grue.train.rl.minibatch), their
number does not depend on how many processes share the rollout, and advantages are normalised over
the whole rollout, so an episode's sequence-level reward survives normalisation."""
import math
from types import SimpleNamespace

import pytest
import torch
from accelerate import Accelerator

from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.minibatch import episode_minibatches, minibatch_count, transition_minibatches
from grue.train.rl.trainer import RLTrainer
from tests.train.rl.test_learning import TokenCountReward, tiny_cfg


def split_sizes(n, parts):
    """The sizes `torch.tensor_split` gives `n` items cut into `parts` (the first n % parts one larger)."""
    return [n // parts + (1 if j < n % parts else 0) for j in range(parts)]


def ragged_valid(lengths, width):
    return torch.tensor([[1.0] * n + [0.0] * (width - n) for n in lengths])


def covered(valid, batches):
    """How often each transition of `valid` is selected by `batches` (rows mapped back to the rollout)."""
    counts = torch.zeros_like(valid)
    for b in batches:
        counts[b.rows, :b.length] += b.selected
    return counts


def test_minibatches_partition_the_valid_transitions_and_mix_episodes():
    valid = ragged_valid([8, 3, 8, 5, 8, 1], width=8)   # 33 transitions, episodes of several lengths
    parts = minibatch_count(int(valid.sum()), batch_size=4)
    batches = transition_minibatches(valid, parts, torch.Generator().manual_seed(0))
    assert parts == math.ceil(33 / 4) == len(batches)
    assert torch.equal(covered(valid, batches), valid)  # every real transition once, no padding
    assert all(b.size <= 4 for b in batches)
    assert sum(len(b.rows) > 1 for b in batches) >= parts // 2  # most minibatches mix several episodes
    for b in batches:  # the forward pass runs only as far as the last selected step
        assert b.selected[:, -1].any()


def test_one_and_two_processes_take_the_same_steps_with_the_same_global_minibatches():
    """The same rollout, held by one process or split over two: equal numbers of optimizer steps and,
    step by step, global minibatches of equal size (each rank takes part j of its own transitions)."""
    valid = ragged_valid([48] * 27, width=48)          # the IMDB paper preset: 1296 transitions, batch 64
    per_rank = [valid[:14], valid[14:]]
    total = int(valid.sum())
    parts = minibatch_count(total, batch_size=64)
    one = transition_minibatches(valid, parts, torch.Generator().manual_seed(0))
    two = [transition_minibatches(v, parts, torch.Generator().manual_seed(0)) for v in per_rank]
    assert len(one) == len(two[0]) == len(two[1]) == parts == 21
    global_sizes = [sum(s) for s in zip(*(split_sizes(int(v.sum()), parts) for v in per_rank))]
    assert [a.size + b.size for a, b in zip(*two)] == global_sizes
    assert sorted(global_sizes) == sorted(b.size for b in one)
    assert max(global_sizes) <= 64 and sum(global_sizes) == total


def test_a_rank_with_fewer_transitions_than_minibatches_still_takes_every_step():
    batches = transition_minibatches(ragged_valid([2], width=4), parts=5, generator=torch.Generator().manual_seed(0))
    assert len(batches) == 5 and sum(b.size for b in batches) == 2


def test_episode_minibatches_hold_whole_episodes_and_partition_the_rollout():
    """ppo.minibatch=episodes: the same number of minibatches, each made of whole episodes (every
    valid step of each of its episodes, nothing of any other), together covering each transition once."""
    valid = ragged_valid([8, 3, 8, 5, 8, 1, 6, 8], width=8)   # 47 transitions in 8 episodes
    parts = minibatch_count(int(valid.sum()), batch_size=16)
    batches = episode_minibatches(valid, parts, torch.Generator().manual_seed(0))
    assert len(batches) == parts == 3
    assert torch.equal(covered(valid, batches), valid)
    assert sorted(len(b.rows) for b in batches) == [2, 3, 3]         # episodes split as evenly as they go
    for b in batches:
        assert torch.equal(b.selected, valid[b.rows, :b.length])     # whole episodes
        assert b.selected[:, -1].any()                               # cut after the longest one's last step
    rows = torch.cat([b.rows for b in batches])
    assert sorted(rows.tolist()) == list(range(8))
    assert rows.tolist() != list(range(8))                            # shuffled, not in rollout order


def test_episode_minibatches_leave_a_rank_with_few_episodes_empty_steps():
    batches = episode_minibatches(ragged_valid([2, 3], width=4), parts=3, generator=torch.Generator().manual_seed(0))
    assert len(batches) == 3 and [b.size for b in batches].count(0) == 1 and sum(b.size for b in batches) == 5


@pytest.mark.parametrize("minibatch", ["transitions", "episodes"])
def test_update_takes_the_same_steps_whatever_a_minibatch_is_cut_from(tiny_causal_policy, minibatch):
    cfg = tiny_cfg(rollout={"min_new_tokens": 6, "max_new_tokens": 6},
                   ppo={"steps_per_update": 48, "batch_size": 24, "epochs": 2, "rollout_batch_size": 8,
                        "minibatch": minibatch})
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in"])]
    trainer = RLTrainer(cfg, tiny_causal_policy, frozen_copy(tiny_causal_policy.model),
                        build_value(cfg, tiny_causal_policy), TokenCountReward(), samples, Accelerator(cpu=True))
    stats = trainer.step()
    assert stats["tokens"] == 48 and stats["optimizer_steps"] == 2 * 2


def test_update_takes_epochs_times_ceil_transitions_over_batch_size_steps(tiny_causal_policy):
    cfg = tiny_cfg(rollout={"min_new_tokens": 6, "max_new_tokens": 6},
                   ppo={"steps_per_update": 30, "batch_size": 4, "epochs": 3, "rollout_batch_size": 8})
    policy = tiny_causal_policy
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in"])]
    trainer = RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                        samples, Accelerator(cpu=True))
    stats = trainer.step()
    assert stats["tokens"] == 30                       # 5 episodes of 6 tokens
    assert stats["optimizer_steps"] == 3 * math.ceil(30 / 4)


@pytest.mark.parametrize("mode", ["rollout", "none"])
def test_advantages_are_normalised_over_the_whole_rollout(mode):
    """A good episode keeps positive advantages on every token; per-episode normalisation would force
    each episode's advantages to mean zero and give the good episode's first tokens negative ones."""
    trainer = SimpleNamespace(cfg=tiny_cfg(ppo={"normalise_advantages": mode}), world=1)
    valid = ragged_valid([4, 4, 2], width=4)
    advantages = torch.tensor([[0.9, 0.95, 0.97, 1.0], [0.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.0, 0.0]]) * valid
    exp = SimpleNamespace(advantages=advantages, rollout=SimpleNamespace(valid=valid))
    out = RLTrainer._normalised_advantages(trainer, exp)
    if mode == "none":
        assert torch.equal(out, advantages)
        return
    real = out[valid > 0]
    assert abs(real.mean().item()) < 1e-6 and abs(real.pow(2).mean().sqrt().item() - 1) < 1e-4
    assert (out[0] > 0).all() and (out[1] < 0).all()    # the good episode stays good, the bad one bad
    assert (out[2, 2:] == 0).all()                       # padding stays zero
    mean, std = advantages[valid > 0].mean(), advantages[valid > 0].std(unbiased=False)
    assert torch.allclose(real, (advantages[valid > 0] - mean) / std, atol=1e-5)


def test_an_iteration_collects_steps_per_update_transitions_when_episodes_end_early(tiny_causal_policy):
    """Steps are transitions: with an EOS-prone model, ceil(steps / horizon) episodes hold far fewer
    than `steps_per_update` tokens; the iteration keeps collecting until it holds at least that many."""
    policy = tiny_causal_policy
    bias = torch.zeros(policy.model.config.vocab_size)
    bias[policy.eos_id] = 3.0  # EOS likely at every step: most episodes stop after a few tokens
    policy.model.lm_head.register_forward_hook(lambda m, i, o: o + bias)
    cfg = tiny_cfg(rollout={"min_new_tokens": 1, "max_new_tokens": 8},
                   ppo={"steps_per_update": 64, "batch_size": 16, "epochs": 1, "rollout_batch_size": 8})
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    torch.manual_seed(0)
    trainer = RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                        samples, Accelerator(cpu=True))
    stats = trainer.step()
    assert stats["episodes"] > math.ceil(64 / 8)         # more episodes than full-length ones would need
    assert 64 <= stats["tokens"] < 64 + 8 * 8             # at least the steps, at most one more rollout batch over
    assert stats["tokens"] / stats["episodes"] < 8        # they really ended early
