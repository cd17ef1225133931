"""Tensors that travel between rollout, reward, advantage and update code."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

import torch


@dataclass
class PromptBatch:
    input_ids: torch.Tensor        # [B, P], padded on the configured side
    attention_mask: torch.Tensor   # [B, P]

    def to(self, device: str) -> "PromptBatch":
        return PromptBatch(self.input_ids.to(device), self.attention_mask.to(device))

    def select(self, idx: torch.Tensor | list[int]) -> "PromptBatch":
        return PromptBatch(self.input_ids[idx], self.attention_mask[idx])

    def padded_to(self, width: int, pad_id: int, side: str) -> "PromptBatch":
        """The same prompts padded on `side` to `width` tokens (prompts encoded in separate calls differ
        in width; the attention mask, and the positions derived from it, make padding invisible)."""
        extra = width - self.input_ids.shape[1]
        if extra <= 0:
            return self
        ids = torch.full((self.input_ids.shape[0], extra), pad_id, dtype=self.input_ids.dtype,
                         device=self.input_ids.device)
        zeros = torch.zeros_like(ids, dtype=self.attention_mask.dtype)
        if side == "left":
            return PromptBatch(torch.cat([ids, self.input_ids], 1), torch.cat([zeros, self.attention_mask], 1))
        return PromptBatch(torch.cat([self.input_ids, ids], 1), torch.cat([self.attention_mask, zeros], 1))


def position_ids(attention_mask: torch.Tensor) -> torch.Tensor:
    """Positions that skip left padding, the way generate() numbers them for a decoder-only model."""
    pos = attention_mask.long().cumsum(-1) - 1
    return pos.masked_fill(attention_mask == 0, 1)


@dataclass
class Rollout:
    """One batch of episodes. Index t is the t-th generated token (action) of each episode."""

    prompts: PromptBatch
    actions: torch.Tensor            # [B, T] token ids (padding after the episode ends)
    valid: torch.Tensor              # [B, T] 1.0 for real actions, EOS included
    logp: torch.Tensor               # [B, T] log-prob under the sampling distribution (mask, top-k, temperature)
    raw_logp: torch.Tensor           # [B, T] log-prob under the full policy distribution (for the KL penalty)
    action_mask: Optional[torch.Tensor] = None  # [B, T, V] bool: tokens the sampling distribution allowed
    temperature: float = 1.0
    # [B, T] the sampler's own log-probs when it ran apart from the learner (rollout.precision, grue.policy.precision):
    # `logp` and `raw_logp` are then the learner's recomputed ones. None: the sampler is the learner.
    sampler_logp: Optional[torch.Tensor] = None
    # [B, T, H] the learner's last hidden states from that recomputation, for a shared critic's values (so the
    # value pass costs nothing more); dropped once the advantages are computed. None otherwise.
    learner_states: Optional[torch.Tensor] = None

    @property
    def last_index(self) -> torch.Tensor:
        return (self.valid.sum(-1).long() - 1).clamp(min=0)

    def select(self, idx: torch.Tensor | list[int]) -> "Rollout":
        kwargs = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, PromptBatch):
                value = value.select(idx)
            elif isinstance(value, torch.Tensor):
                value = value[idx]
            kwargs[f.name] = value
        return Rollout(**kwargs)

    def prefix(self, length: int) -> "Rollout":
        """The first `length` steps of every episode (enough to score the steps before `length`: every
        model here is causal over the actions)."""
        kwargs = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, torch.Tensor):
                value = value[:, :length]
            kwargs[f.name] = value
        return Rollout(**kwargs)
