"""Per-token log-probs and entropy without [B, T, V] tensors.

The update needs, per action, one number from the vocabulary distribution (the taken token's
log-prob) and, at most, one more (the entropy). Computing them from a whole [B, T, V] logits tensor,
its float32 log-softmax and the autograd graph of both makes the update's peak memory grow with
batch x length x vocabulary (SmolLM2's vocabulary is 49,152: 16 episodes of 48 tokens hold 150 MB per
float32 copy, several copies live at once). Here the vocabulary head runs on the last hidden states a
chunk of positions at a time, and each chunk is checkpointed: its logits and log-softmax are freed as
soon as the chunk's two numbers per position are out, and made again, one chunk at a time, in the
backward pass. Peak memory for this part is one chunk's, whatever B and T; the price is a second
head product per chunk in the backward pass.

How the policy gets the head's input without running the head is the policy's business
(grue.policy.base: the model's output embedding is swapped for an identity during the pass). A model
whose head cannot be split from its trunk (a sharded one) passes logits instead (`head=None`), and
only the log-softmax work is chunked.

Chunked and whole-tensor results agree to float32 rounding (tests/policy/test_chunked_logprobs.py
states the tolerances); the log-softmax of each position is computed by the same operations either way.
"""
from __future__ import annotations

from typing import Callable, Optional

import torch
from torch.utils.checkpoint import checkpoint

from grue.policy.masking import entropy, gather, sampling_log_probs

# Elements of one chunk's [rows, V] logits: 2^23 float32 is 32 MiB per copy (a few copies live at once).
CHUNK_ELEMENTS = 1 << 23

Head = Optional[Callable[[torch.Tensor], torch.Tensor]]


def chunk_length(rows: int, width: int, budget: int = CHUNK_ELEMENTS) -> int:
    """Positions per chunk so that rows x positions x width stays within `budget` elements (at least one)."""
    return max(1, budget // max(1, rows * width))


def _needs_graph(states: torch.Tensor, head: Head) -> bool:
    if not torch.is_grad_enabled():
        return False
    if states.requires_grad:
        return True
    return isinstance(head, torch.nn.Module) and any(p.requires_grad for p in head.parameters())


def _head_width(states: torch.Tensor, head: Head) -> int:
    if head is None:
        return states.shape[-1]
    weight = getattr(head, "weight", None)
    if isinstance(weight, torch.Tensor) and weight.ndim == 2:
        return max(weight.shape)  # an output embedding maps hidden -> vocabulary; the vocabulary is the larger side
    return states.shape[-1] * 64


def _sampling_chunk(states: torch.Tensor, actions: torch.Tensor, mask: Optional[torch.Tensor], head: Head,
                    temperature: float, entropy_grad: bool, with_raw: bool = False,
                    raw_temperature: float = 1.0) -> tuple[torch.Tensor, ...]:
    logits = head(states) if head is not None else states
    # the unmasked log-prob at the KL's temperature (1 unless kl.temperature) from the same head product (a
    # KL term's), before the logits go
    raw = (_raw_of_logits(logits, actions, raw_temperature),) if with_raw else ()
    logp_all = sampling_log_probs(logits, mask, temperature)
    del logits
    logp = gather(logp_all, actions)
    if entropy_grad:
        return (logp, entropy(logp_all)) + raw
    with torch.no_grad():
        return (logp, entropy(logp_all)) + raw


def _raw_of_logits(logits: torch.Tensor, actions: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    logits = logits.float()
    logits = logits / temperature if temperature != 1.0 else logits  # no copy at T = 1: today's exact values
    return gather(logits, actions) - torch.logsumexp(logits, dim=-1)


def _raw_chunk(states: torch.Tensor, actions: torch.Tensor, head: Head) -> torch.Tensor:
    return _raw_of_logits(head(states) if head is not None else states, actions)


def _chunks(length: int, size: int):
    for start in range(0, length, size):
        yield slice(start, min(length, start + size))


def sampling_stats(states: torch.Tensor, actions: torch.Tensor, action_mask: Optional[torch.Tensor],
                   temperature: float, head: Head = None, entropy_grad: bool = True,
                   chunk: Optional[int] = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(log-prob of each action under the sampling distribution [B, T], that distribution's entropy [B, T]).

    `states` are the head's inputs at the states predicting each action [B, T, H] (or, with
    `head=None`, the logits themselves [B, T, V]); `action_mask` [B, T, V] the tokens the sampler
    allowed (None: all). With `entropy_grad=False` the entropy carries no gradient (it is only logged).
    """
    logp, ent = _chunked_stats(states, actions, action_mask, temperature, head, entropy_grad, False, chunk)
    return logp, ent


def sampling_and_raw_stats(states: torch.Tensor, actions: torch.Tensor, action_mask: Optional[torch.Tensor],
                           temperature: float, head: Head = None, entropy_grad: bool = True,
                           chunk: Optional[int] = None,
                           raw_temperature: float = 1.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`sampling_stats`' two, and the unmasked log-prob of each action at `raw_temperature` [B, T] (what a
    KL term in the loss compares with the reference: 1, or kl.temperature's), all from one head product
    per chunk."""
    logp, ent, raw = _chunked_stats(states, actions, action_mask, temperature, head, entropy_grad, True, chunk,
                                    raw_temperature)
    return logp, ent, raw


def _chunked_stats(states: torch.Tensor, actions: torch.Tensor, action_mask: Optional[torch.Tensor],
                   temperature: float, head: Head, entropy_grad: bool, with_raw: bool,
                   chunk: Optional[int], raw_temperature: float = 1.0) -> list[torch.Tensor]:
    size = chunk or chunk_length(states.shape[0], _head_width(states, head))
    graph = _needs_graph(states, head)
    columns: list[list[torch.Tensor]] = []
    for part in _chunks(actions.shape[1], size):
        mask = action_mask[:, part] if action_mask is not None else None
        args = (states[:, part], actions[:, part], mask, head, temperature, entropy_grad, with_raw, raw_temperature)
        outputs = (checkpoint(_sampling_chunk, *args, use_reentrant=False) if graph
                   else _sampling_chunk(*args))
        columns.append(list(outputs))
    return [torch.cat(parts, dim=1) for parts in zip(*columns)]


def raw_log_probs(states: torch.Tensor, actions: torch.Tensor, head: Head = None,
                  chunk: Optional[int] = None) -> torch.Tensor:
    """log softmax(logits) at the taken actions [B, T]: the unmasked, temperature-1 distribution (KL)."""
    size = chunk or chunk_length(states.shape[0], _head_width(states, head))
    graph = _needs_graph(states, head)
    parts = []
    for part in _chunks(actions.shape[1], size):
        args = (states[:, part], actions[:, part], head)
        parts.append(checkpoint(_raw_chunk, *args, use_reentrant=False) if graph else _raw_chunk(*args))
    return torch.cat(parts, dim=1)
