"""The NLPO mask as a generation-time logits processor that runs the masking model incrementally.

The masking model keeps its own KV cache, so each step costs one cached forward of one token,
like the policy itself. Tokens outside the masking model's top-p set get -inf in the policy's
scores before sampling; generate() then records those scores, so the same mask is stored with the
rollout and reused in the PPO loss.
"""
from __future__ import annotations

from typing import Any, Iterable

import torch
from transformers import LogitsProcessor

from grue.policy.batch import PromptBatch
from grue.policy.causal import position_ids
from grue.rl.nlpo_mask import apply_mask, top_p_mask


class CausalMaskProcessor(LogitsProcessor):
    def __init__(self, mask_model: Any, prompts: PromptBatch, top_p: float, min_tokens_to_keep: int,
                 never_mask: Iterable[int]) -> None:
        self.mask_model = mask_model
        self.prompt_len = prompts.input_ids.shape[1]
        self.attention = prompts.attention_mask
        self.top_p = top_p
        self.min_tokens_to_keep = min_tokens_to_keep
        self.never_mask = list(never_mask)
        self.cache = None
        self.seen = 0

    @torch.no_grad()
    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        new = input_ids[:, self.seen:] if self.cache is not None else input_ids
        if self.cache is not None:  # tokens generated since the last call are real (or padding after EOS)
            self.attention = torch.cat([self.attention, torch.ones_like(new)], dim=1)
        pos = position_ids(self.attention)[:, -new.shape[1]:]
        out = self.mask_model(input_ids=new, attention_mask=self.attention, position_ids=pos,
                              cache=self.cache, use_cache=True)
        self.cache = out.past_key_values
        self.seen = input_ids.shape[1]
        keep = top_p_mask(out.logits[:, -1].float(), self.top_p, self.min_tokens_to_keep, self.never_mask)
        return apply_mask(scores, keep)
