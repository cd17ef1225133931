"""NLPO's action mask: the top-p set of the masking policy pi_psi (paper Eq. 6, section 3.8 of the spec).

The mask is computed from the masking model's logits at each generation step, applied to the
current policy's logits before sampling, stored with the rollout, and applied again to the policy
distribution in the PPO loss, so both log-probs of the ratio come from the same masked distribution.
"""
from __future__ import annotations

from typing import Iterable

import torch

BOUND_KEY = "nlpo/mask_bound_fraction"  # logs/train.jsonl: share of this iteration's sampling steps the mask changed


def top_p_mask(logits: torch.Tensor, top_p: float, min_tokens_to_keep: int = 1,
               never_mask: Iterable[int] = ()) -> torch.Tensor:
    """True for the smallest set of highest-probability tokens whose mass reaches `top_p`.

    The token that crosses `top_p` is kept (Hugging Face's top-p convention, as the reference code),
    at least `min_tokens_to_keep` tokens are kept, and `never_mask` ids (special tokens) always stay.
    """
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    # keep a token if the mass *before* it is below top_p
    keep_sorted = (cumulative - sorted_logits.softmax(-1)) < top_p
    keep_sorted[..., : max(1, min_tokens_to_keep)] = True
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    ids = [i for i in never_mask if i is not None and 0 <= i < logits.shape[-1]]
    if ids:
        keep[..., ids] = True
    return keep


def apply_mask(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask, float("-inf"))


def loose_mask_note(top_k: int, min_tokens_to_keep: int) -> str | None:
    """A note when the mask can hardly bind: sampling already keeps only the policy's top k, and the
    mask keeps at least `min_tokens_to_keep` >= k tokens, ranked by a masking model that starts equal
    to the policy. NLPO then samples as PPO does until the two drift apart (the paper's IMDB settings,
    top-k 50 and 100 kept, are such a case). Not an error: it is what those settings mean."""
    if top_k and min_tokens_to_keep >= top_k:
        return (f"nlpo.min_tokens_to_keep={min_tokens_to_keep} >= rollout.top_k={top_k}: the NLPO mask only binds "
                "where the policy's top-k leave the masking model's kept set, so NLPO starts out sampling as PPO "
                "(logs/train.jsonl records nlpo/mask_bound_fraction)")
    return None


def mask_results(train_log: list[dict]) -> dict:
    """results.json's `nlpo_mask`, from logs/train.jsonl: how often the mask changed what the sampler could draw
    (the share of an iteration's sampling steps, one per episode and token, at which it removed at least one of
    the sampler's candidates), as the mean over iterations, the largest and the last. Empty for a run without
    a mask. At 0 the run's rollouts sampled exactly as PPO's would."""
    values = [float(r[BOUND_KEY]) for r in train_log if BOUND_KEY in r]
    if not values:
        return {}
    return {"nlpo_mask": {"iterations": len(values), "mean_bound_fraction": sum(values) / len(values),
                          "max_bound_fraction": max(values), "final_bound_fraction": values[-1]}}
