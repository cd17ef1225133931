"""The NLPO mask as a generation-time logits processor that runs the masking model incrementally.

The masking model keeps its own KV cache, so each step costs one cached forward of one token,
like the policy itself. Under beam search (NLPO evaluated with the task's beam decoding) generate()
reorders the beams at every step, which a cache cannot follow: the masking model then reads each
beam's whole sequence again at every step. Tokens outside the masking model's top-p set get -inf in the policy's
scores before sampling; the rollout's last recorder (grue.policy.step_records) sees those scores, so
the same mask is stored with the rollout and reused in the PPO loss. The two architectures differ only in how the masking model
takes the next token: a decoder-only model extends prompt + actions; an encoder-decoder encodes
the prompt once and extends its decoder.
"""
from __future__ import annotations

import inspect
from typing import Any, Iterable

import torch
from transformers import LogitsProcessor

from grue.policy.batch import PromptBatch, position_ids
from grue.train.rl.nlpo_mask import apply_mask, top_p_mask


def cache_argument(model: Any) -> str:
    """The name under which `model.forward` takes its KV cache: `cache` from the transformers release
    that renamed it, `past_key_values` before. A model given the name it does not know swallows it in
    `**kwargs` and silently runs without its cache (T5 refuses it), so the name is read, not assumed."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


class _MaskProcessor(LogitsProcessor):
    def __init__(self, mask_model: Any, prompts: PromptBatch, top_p: float, min_tokens_to_keep: int,
                 never_mask: Iterable[int], beams: int = 1) -> None:
        self.mask_model = mask_model
        # generate() runs `beams` rows per prompt, next to each other
        self.prompts = prompts if beams == 1 else prompts.select(
            torch.arange(prompts.input_ids.shape[0], device=prompts.input_ids.device).repeat_interleave(beams))
        self.beams = beams
        self.top_p = top_p
        self.min_tokens_to_keep = min_tokens_to_keep
        self.never_mask = list(never_mask)
        self.cache = None
        self.cache_arg = cache_argument(mask_model) if mask_model is not None else "cache"
        self.seen = 0  # tokens of generate()'s input_ids the cache already holds
        # How often the mask changes anything: generate() applies top-k *after* this processor, so a
        # step is "bound" when the mask removes one of the policy's top-k candidates (any candidate
        # when top_k is 0). With min_tokens_to_keep >= top_k and a fresh masking model it never is,
        # and NLPO then samples exactly as PPO does.
        self.top_k = 0
        self.steps = 0
        self.bound = 0

    def _next_logits(self, new: torch.Tensor) -> torch.Tensor:
        """The masking model's logits for the next token after `new` (the tokens not yet cached)."""
        raise NotImplementedError

    @torch.no_grad()
    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.beams > 1:  # no cache: every call starts again from the prompts
            self.cache, self.seen = None, 0
            self._restart()
        logits = self._next_logits(input_ids[:, self.seen:])
        self.seen = input_ids.shape[1]
        keep = top_p_mask(logits.float(), self.top_p, self.min_tokens_to_keep, self.never_mask)
        self._count(scores, keep)
        return apply_mask(scores, keep)

    def _restart(self) -> None:
        """Forget what earlier calls fed the masking model (beam search: the beams were reordered)."""

    def select(self, keep: torch.Tensor) -> None:
        """Keep only the rows `keep`: grue's decode loop drops the rows that ended, from the policy's batch and
        from every processor's, so NLPO decodes the same batches as PPO (the same rounding: with a mask that
        binds nowhere, the same run). generate() never calls it: its finished rows stay in, fed padding."""
        self.prompts = self.prompts.select(keep)
        if self.cache is not None:
            self.cache.batch_select_indices(keep)

    def _count(self, scores: torch.Tensor, keep: torch.Tensor) -> None:
        candidates = torch.isfinite(scores)
        if 0 < self.top_k < scores.shape[-1]:
            top = torch.zeros_like(candidates).scatter(-1, scores.topk(self.top_k, dim=-1).indices, True)
            candidates &= top
        self.bound += int((candidates & ~keep).any(-1).sum())
        self.steps += scores.shape[0]


class CausalMaskProcessor(_MaskProcessor):
    """generate()'s input_ids are prompt + actions; the first call sees the whole prompt."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.attention = self.prompts.attention_mask

    def _restart(self) -> None:
        self.attention = self.prompts.attention_mask

    def select(self, keep: torch.Tensor) -> None:
        super().select(keep)
        self.attention = self.attention[keep]

    def _next_logits(self, new: torch.Tensor) -> torch.Tensor:
        generated = new.shape[1] - (self.prompts.input_ids.shape[1] if self.cache is None else 0)
        if generated > 0:  # tokens generated since the last call are real (or padding after EOS)
            self.attention = torch.cat([self.attention, torch.ones_like(new[:, -generated:])], dim=1)
        pos = position_ids(self.attention)[:, -new.shape[1]:]
        out = self.mask_model(input_ids=new, attention_mask=self.attention, position_ids=pos,
                              use_cache=True, **{self.cache_arg: self.cache})
        self.cache = out.past_key_values
        return out.logits[:, -1]


class Seq2SeqMaskProcessor(_MaskProcessor):
    """generate()'s input_ids are the decoder tokens (start token + actions); the prompt is encoded
    by the masking model's own encoder once, on the first call, and reused at every step."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.encoder_outputs = None

    def select(self, keep: torch.Tensor) -> None:
        super().select(keep)
        if self.encoder_outputs is not None:
            self.encoder_outputs.last_hidden_state = self.encoder_outputs.last_hidden_state[keep]

    def _next_logits(self, new: torch.Tensor) -> torch.Tensor:
        if self.encoder_outputs is None:
            self.encoder_outputs = self.mask_model.get_encoder()(
                input_ids=self.prompts.input_ids, attention_mask=self.prompts.attention_mask)
        out = self.mask_model(encoder_outputs=self.encoder_outputs, attention_mask=self.prompts.attention_mask,
                              decoder_input_ids=new, use_cache=self.beams == 1, **{self.cache_arg: self.cache})
        self.cache = out.past_key_values
        return out.logits[:, -1]
