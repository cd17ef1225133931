"""Encoder-decoder (T5-style) language models as policies.

The prompt is the encoder's input and never changes during an episode; the actions are decoder
tokens that follow the decoder start token. State s_t is (prompt, actions before t), so one
teacher-forced pass with decoder inputs [start] + actions[:-1] scores a whole rollout, and the
critic reads the decoder's last hidden states at the same positions.
"""
from __future__ import annotations

import copy
from typing import Any, Iterable, Optional, Sequence

import torch

from grue.policy.base import LMPolicy
from grue.policy.batch import PromptBatch
from grue.policy.mask_processor import Seq2SeqMaskProcessor
from grue.policy.stack_config import position_limit, stack_configs


def decoder_start_id(model: Any) -> int:
    """The token the decoder starts from (T5: the pad token), from the model's config."""
    for source in (model.config, getattr(model, "generation_config", None)):
        value = getattr(source, "decoder_start_token_id", None)
        if value is not None:
            return int(value)
    raise ValueError("an encoder-decoder policy needs decoder_start_token_id in its model config")


def encoder_decoder_trunk(model: Any) -> torch.nn.Module:
    """Encoder + decoder without the vocabulary head, with the model's current weights.

    T5ForConditionalGeneration holds its stacks directly (its `base_model` is itself), so the bare
    model class is built from the same config and given the shared weights; architectures that wrap
    a bare model (BART's `.model`) are copied as they are.
    """
    if model.base_model is not model:
        return copy.deepcopy(model.base_model)
    from transformers import AutoModel

    from grue.policy.lora import base_state_dict, lora_layers

    trunk = AutoModel.from_config(model.config)
    # a LoRA policy's critic starts from the base weights, without the adapters (grue.policy.lora)
    state = base_state_dict(model) if lora_layers(model) else model.state_dict()
    missing, _ = trunk.load_state_dict(state, strict=False)
    if missing:
        raise ValueError(f"cannot build an encoder-decoder critic trunk: weights missing for {missing[:3]}")
    param = next(model.parameters())
    return trunk.to(device=param.device, dtype=param.dtype)


class Seq2SeqPolicy(LMPolicy):
    is_seq2seq = True

    def __init__(self, model: Any, tokenizer: Any, max_prompt_length: int, padding_side: str = "left",
                 truncation_side: str = "right", device: str = "cpu") -> None:
        # T5 has its own pad token (the reference's pad_token_as_eos_token is False for T5 tasks).
        if tokenizer.pad_token_id is None:
            pad = getattr(model.config, "pad_token_id", None)
            if pad is None:
                raise ValueError("the seq2seq tokenizer and model config define no pad token")
            tokenizer.pad_token = tokenizer.convert_ids_to_tokens(pad)
        positions = position_limit(stack_configs(model.config)[0])  # the encoder's; None for T5's relative ones
        if positions and max_prompt_length > positions:
            raise ValueError(f"model.max_prompt_length={max_prompt_length} is longer than the encoder's "
                             f"{positions} positions; set model.max_prompt_length={positions} or less")
        super().__init__(model, tokenizer, max_prompt_length, padding_side, truncation_side, device)
        self.decoder_start_id = decoder_start_id(model)

    def encode(self, prompts: Sequence[str]) -> PromptBatch:
        """Encoder inputs with the tokenizer's own special tokens (T5 ends its inputs with EOS)."""
        enc = self.tokenizer(list(prompts), padding=True, truncation=True, max_length=self.max_prompt_length,
                             padding_side=self.padding_side, return_tensors="pt")
        return PromptBatch(enc["input_ids"], enc["attention_mask"]).to(self.device)

    def _generation_extras(self) -> dict[str, Any]:
        return {"decoder_start_token_id": self.decoder_start_id}

    def _actions(self, sequences: torch.Tensor, prompts: PromptBatch) -> torch.Tensor:
        return sequences[:, 1:]  # generate() returns the decoder start token first

    def decoder_inputs(self, actions: torch.Tensor) -> torch.Tensor:
        start = torch.full_like(actions[:, :1], self.decoder_start_id)
        return torch.cat([start, actions[:, :-1]], dim=1)

    def forward(self, model: Any, prompts: PromptBatch, actions: torch.Tensor, valid: torch.Tensor,
                hidden: bool = False) -> tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        """Encoder over the prompt, decoder teacher-forced on [start] + actions[:-1]; position t is s_t.

        The decoder is causal, so the padding after an episode's EOS cannot change any valid
        position, exactly as during generation (which feeds that padding without a decoder mask).
        `model` may be the seq2seq LM (logits) or its bare trunk (decoder states only, for a critic).
        """
        out = model(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                    decoder_input_ids=self.decoder_inputs(actions), output_hidden_states=hidden, use_cache=False)
        logits = getattr(out, "logits", None)
        states = None
        if hidden:
            states = getattr(out, "last_hidden_state", None)
            states = out.decoder_hidden_states[-1] if states is None else states
        return logits, states

    def value_trunk(self) -> torch.nn.Module:
        return encoder_decoder_trunk(self.model)

    def mask_processor(self, mask_model: Any, prompts: PromptBatch, top_p: float, min_tokens_to_keep: int,
                       never_mask: Iterable[int], beams: int = 1) -> Seq2SeqMaskProcessor:
        return Seq2SeqMaskProcessor(mask_model, prompts, top_p, min_tokens_to_keep, never_mask, beams)
