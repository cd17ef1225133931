"""Turning logits into the sampling distribution a rollout used, and back in the update."""
from __future__ import annotations

from typing import Optional

import torch


def sampling_log_probs(logits: torch.Tensor, action_mask: Optional[torch.Tensor], temperature: float) -> torch.Tensor:
    """log softmax(logits / T) restricted to the allowed tokens: the distribution actions were drawn from."""
    # float32 before the temperature, as the sampler divides (under autocast the logits are bf16/fp16)
    scaled = logits.float()
    scaled = scaled / temperature if temperature != 1.0 else scaled  # no [B, T, V] copy at T = 1
    if action_mask is not None:
        scaled = scaled.masked_fill(~action_mask, float("-inf"))
    return torch.log_softmax(scaled, dim=-1)


def action_log_probs(logits: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """log softmax(logits) at the taken actions, without materialising the [B, T, V] log-softmax."""
    logits = logits.float()
    return gather(logits, actions) - torch.logsumexp(logits, dim=-1)


def gather(logp_all: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    return logp_all.gather(-1, actions.unsqueeze(-1)).squeeze(-1)


def entropy(logp_all: torch.Tensor) -> torch.Tensor:
    p = logp_all.exp()
    return -(p * logp_all.masked_fill(p == 0, 0.0)).sum(-1)
