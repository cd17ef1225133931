"""PPO minibatches of transitions (tokens) drawn from the whole flattened rollout.

The paper's `batch_size` counts transitions, and the reference code (SB3's rollout buffer) draws
that many random transitions from the iteration's flattened buffer, so one minibatch mixes tokens of
many episodes. Cutting minibatches out of whole episodes instead means, at the paper's sizes (64
transitions, 48-token IMDB episodes), one episode per minibatch: its gradient is one trajectory's,
and any per-minibatch statistic (advantage normalisation) is taken within a single episode.

A transition's log-prob needs the forward pass of its episode's prefix, so a minibatch runs the
episodes it touches up to the last step it uses, and the loss is restricted to its own transitions.
With several processes each rank splits its own transitions into the same number of parts; part j
of every rank together form global minibatch j, whose size does not depend on the process count.

`ppo.minibatch=episodes` cuts the same number of minibatches out of whole episodes instead (TRL's
and most PPO-for-LM code's choice): each minibatch runs only its own episodes, so an epoch costs one
forward and backward pass over the rollout rather than one per minibatch. Advantages are still
normalised over the whole rollout, so the sequence-level signal survives; what differs is that one
minibatch's gradient comes from fewer trajectories.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch


def minibatch_count(global_transitions: int, batch_size: int) -> int:
    """Minibatches per epoch: the rollout's transitions (over all processes) in parts of at most `batch_size`."""
    return max(1, math.ceil(global_transitions / batch_size))


@dataclass
class TransitionBatch:
    """One minibatch on this rank: the episodes it touches, how far into them, and which of their steps."""

    rows: torch.Tensor       # [E] episode indices into the rollout
    length: int              # steps of those episodes the forward pass needs
    selected: torch.Tensor   # [E, length] 1.0 at the minibatch's transitions

    @property
    def size(self) -> int:
        return int(self.selected.sum().item())


def transition_minibatches(valid: torch.Tensor, parts: int, generator: torch.Generator) -> list[TransitionBatch]:
    """A random partition of this rank's valid transitions into `parts` minibatches of nearly equal size.

    A rank with fewer transitions than `parts` gets some empty minibatches: it still takes every
    optimizer step (its gradient is then zero), so all ranks stay in step.
    """
    width = valid.shape[1]
    flat = valid.flatten().nonzero().squeeze(-1)
    shuffled = flat[torch.randperm(flat.numel(), generator=generator).to(flat.device)]
    batches = []
    for chunk in torch.tensor_split(shuffled, parts):
        if chunk.numel() == 0:  # nothing here: one episode's first step, selected nowhere
            batches.append(TransitionBatch(torch.zeros(1, dtype=torch.long, device=valid.device), 1,
                                           torch.zeros(1, 1, dtype=valid.dtype, device=valid.device)))
            continue
        rows, local_rows = torch.unique(chunk // width, return_inverse=True)
        steps = chunk % width
        length = int(steps.max().item()) + 1
        selected = torch.zeros(rows.numel(), length, dtype=valid.dtype, device=valid.device)
        selected[local_rows, steps] = 1.0
        batches.append(TransitionBatch(rows, length, selected))
    return batches


def episode_minibatches(valid: torch.Tensor, parts: int, generator: torch.Generator) -> list[TransitionBatch]:
    """A random partition of this rank's episodes into `parts` minibatches of nearly equal episode
    counts, each with all of its episodes' valid transitions (empty ones as in transition_minibatches)."""
    order = torch.randperm(valid.shape[0], generator=generator).to(valid.device)
    batches = []
    for rows in torch.tensor_split(order, parts):
        if rows.numel() == 0:
            batches.append(TransitionBatch(torch.zeros(1, dtype=torch.long, device=valid.device), 1,
                                           torch.zeros(1, 1, dtype=valid.dtype, device=valid.device)))
            continue
        rows = rows.sort().values
        steps = valid[rows].sum(dim=0).nonzero()
        length = int(steps.max().item()) + 1 if steps.numel() else 1
        batches.append(TransitionBatch(rows, length, valid[rows, :length].clone()))
    return batches


MINIBATCHES = {"transitions": transition_minibatches, "episodes": episode_minibatches}
