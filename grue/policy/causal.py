"""Decoder-only language models as policies: the prompt and the actions are one token sequence, so
one forward pass over prompt + actions scores a whole rollout."""
from __future__ import annotations

import copy
import inspect
from functools import lru_cache
from typing import Any, Iterable, Optional, Sequence

import torch

from grue.policy.base import LMPolicy, _language_model, valid_actions  # noqa: F401  (valid_actions: imported from here too)
from grue.policy.batch import PromptBatch, position_ids
from grue.policy.mask_processor import CausalMaskProcessor


@lru_cache(maxsize=None)
def _forward_keeps_logits(model_class: type) -> bool:
    return "logits_to_keep" in inspect.signature(model_class.forward).parameters


def _keeps_logits(model: Any) -> bool:
    """Whether `model` is an LM whose forward can compute logits for the last positions only (a bare
    trunk has no vocabulary head and no such argument; a view of a LoRA model answers for its model)."""
    return _forward_keeps_logits(type(_language_model(model)))


class CausalPolicy(LMPolicy):
    is_seq2seq = False

    def __init__(self, model: Any, tokenizer: Any, max_prompt_length: int, padding_side: str = "left",
                 truncation_side: str = "left", device: str = "cpu") -> None:
        if tokenizer.pad_token_id is None:  # GPT-2 style: pad with EOS (reference: pad_token_as_eos_token)
            tokenizer.pad_token = tokenizer.eos_token
        # Decoder-only prompts are always left-padded so generation continues right after them.
        super().__init__(model, tokenizer, max_prompt_length, "left", truncation_side, device)

    def encode(self, prompts: Sequence[str]) -> PromptBatch:
        enc = self.tokenizer(list(prompts), padding=True, truncation=True, max_length=self.max_prompt_length,
                             padding_side=self.padding_side, return_tensors="pt", add_special_tokens=False)
        return PromptBatch(enc["input_ids"], enc["attention_mask"]).to(self.device)

    def _actions(self, sequences: torch.Tensor, prompts: PromptBatch) -> torch.Tensor:
        return sequences[:, prompts.input_ids.shape[1]:]

    def forward(self, model: Any, prompts: PromptBatch, actions: torch.Tensor, valid: torch.Tensor,
                hidden: bool = False) -> tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        """Logits predicting each action (and last hidden states at the same states) in one pass.

        Position t of the outputs is state s_t: the prompt plus actions before t.
        `model` may be a causal LM (logits) or its bare trunk (hidden states only, for a value model).
        """
        attn = torch.cat([prompts.attention_mask, valid.long()], dim=1)
        ids = torch.cat([prompts.input_ids, actions], dim=1)
        p, t = prompts.input_ids.shape[1], actions.shape[1]
        # The vocabulary head only at the t + 1 last positions (the states that predict actions, and the
        # final one): prompt positions predict nothing PPO uses, and the head is a large share of the pass.
        keep = {"logits_to_keep": t + 1} if _keeps_logits(model) else {}
        out = model(input_ids=ids, attention_mask=attn, position_ids=position_ids(attn),
                    output_hidden_states=hidden, use_cache=False, **keep)
        logits = None
        if hasattr(out, "logits"):
            logits = out.logits[:, :-1] if keep else out.logits[:, p - 1:p + t - 1]
        states = None
        if hidden:
            last = getattr(out, "last_hidden_state", None)
            last = out.hidden_states[-1] if last is None else last
            states = last[:, p - 1:p + t - 1]
        return logits, states

    def value_trunk(self) -> torch.nn.Module:
        model = self.model
        return copy.deepcopy(model.get_decoder() if hasattr(model, "get_decoder") else model.base_model)

    def mask_processor(self, mask_model: Any, prompts: PromptBatch, top_p: float, min_tokens_to_keep: int,
                       never_mask: Iterable[int], beams: int = 1) -> CausalMaskProcessor:
        return CausalMaskProcessor(mask_model, prompts, top_p, min_tokens_to_keep, never_mask, beams)
