"""Decoder-only language models as policies: prompt encoding, sampling with the per-step records
PPO needs, and one forward pass that scores a whole rollout."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import torch
from transformers import GenerationConfig, LogitsProcessorList

from grue.policy.batch import PromptBatch, Rollout
from grue.policy.masking import gather, sampling_log_probs


def position_ids(attention_mask: torch.Tensor) -> torch.Tensor:
    """Positions that skip left padding, the way generate() numbers them."""
    pos = attention_mask.long().cumsum(-1) - 1
    return pos.masked_fill(attention_mask == 0, 1)


def valid_actions(actions: torch.Tensor, eos_id: Optional[int]) -> torch.Tensor:
    """1 up to and including the first EOS of each row, 0 after (generate pads finished rows)."""
    if eos_id is None:
        return torch.ones_like(actions, dtype=torch.float32)
    is_eos = (actions == eos_id).long()
    ended_before = is_eos.cumsum(-1) - is_eos
    return (ended_before == 0).float()


class CausalPolicy:
    is_seq2seq = False

    def __init__(self, model: Any, tokenizer: Any, max_prompt_length: int, padding_side: str = "left",
                 truncation_side: str = "left", device: str = "cpu") -> None:
        self.model = model
        self.tokenizer = tokenizer
        if tokenizer.pad_token_id is None:  # GPT-2 style: pad with EOS (reference: pad_token_as_eos_token)
            tokenizer.pad_token = tokenizer.eos_token
        # Decoder-only prompts are always left-padded so generation continues right after them.
        tokenizer.padding_side = "left"
        tokenizer.truncation_side = truncation_side
        self.max_prompt_length = max_prompt_length
        self.device = device

    @property
    def eos_id(self) -> Optional[int]:
        return self.tokenizer.eos_token_id

    def special_token_ids(self) -> list[int]:
        return sorted({i for i in (self.tokenizer.eos_token_id, self.tokenizer.pad_token_id,
                                   self.tokenizer.bos_token_id) if i is not None})

    def encode(self, prompts: Sequence[str]) -> PromptBatch:
        enc = self.tokenizer(list(prompts), padding=True, truncation=True, max_length=self.max_prompt_length,
                             return_tensors="pt", add_special_tokens=False)
        return PromptBatch(enc["input_ids"], enc["attention_mask"]).to(self.device)

    def decode(self, actions: torch.Tensor, valid: torch.Tensor) -> list[str]:
        texts = []
        for row, keep in zip(actions.tolist(), valid.tolist()):
            ids = [t for t, k in zip(row, keep) if k and t != self.eos_id]
            texts.append(self.tokenizer.decode(ids, skip_special_tokens=True))
        return texts

    def generation_config(self, gen: Any) -> GenerationConfig:
        return GenerationConfig(
            do_sample=gen.do_sample, top_k=gen.top_k if gen.do_sample else None, top_p=gen.top_p,
            temperature=gen.temperature if gen.do_sample else None, num_beams=gen.num_beams,
            length_penalty=gen.length_penalty, min_new_tokens=gen.min_new_tokens,
            max_new_tokens=gen.max_new_tokens, pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.eos_id,
        )

    @torch.no_grad()
    def generate_text(self, prompts: PromptBatch, gen: Any) -> list[str]:
        """Evaluation decoding (sampling or beam search); no per-step records."""
        out = self.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                  generation_config=self.generation_config(gen))
        actions = out[:, prompts.input_ids.shape[1]:]
        return self.decode(actions, valid_actions(actions, self.eos_id))

    @torch.no_grad()
    def sample(self, prompts: PromptBatch, gen: Any, processors: Sequence[Any] = ()) -> Rollout:
        """Sample episodes with a KV cache, recording what PPO needs at each step.

        The processed scores are the exact sampling distribution (min length, NLPO mask, top-k,
        temperature), so their finite entries are the action mask and their log-softmax the
        behaviour log-prob; the raw logits give the unmasked log-prob the KL penalty uses.
        """
        out = self.model.generate(
            input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
            generation_config=self.generation_config(gen), logits_processor=LogitsProcessorList(list(processors)),
            return_dict_in_generate=True, output_scores=True, output_logits=True,
        )
        actions = out.sequences[:, prompts.input_ids.shape[1]:]
        scores = torch.stack(out.scores, dim=1)          # [B, T, V] processed (already / temperature)
        raw = torch.stack(out.logits, dim=1).float()     # [B, T, V] raw
        action_mask = torch.isfinite(scores)
        logp = gather(torch.log_softmax(scores.float(), -1), actions)
        raw_logp = gather(torch.log_softmax(raw, -1), actions)
        valid = valid_actions(actions, self.eos_id)
        needs_mask = not bool(action_mask.all())
        return Rollout(prompts, actions, valid, logp * valid, raw_logp * valid,
                       action_mask if needs_mask else None, gen.temperature if gen.do_sample else 1.0)

    def forward(self, model: Any, prompts: PromptBatch, actions: torch.Tensor, valid: torch.Tensor,
                hidden: bool = False) -> tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        """Logits predicting each action (and last hidden states at the same states) in one pass.

        Position t of the outputs is state s_t: the prompt plus actions before t.
        `model` may be a causal LM (logits) or its bare trunk (hidden states only, for a value model).
        """
        attn = torch.cat([prompts.attention_mask, valid.long()], dim=1)
        ids = torch.cat([prompts.input_ids, actions], dim=1)
        out = model(input_ids=ids, attention_mask=attn, position_ids=position_ids(attn),
                    output_hidden_states=hidden, use_cache=False)
        p, t = prompts.input_ids.shape[1], actions.shape[1]
        logits = out.logits[:, p - 1:p + t - 1] if hasattr(out, "logits") else None
        states = None
        if hidden:
            last = getattr(out, "last_hidden_state", None)
            last = out.hidden_states[-1] if last is None else last
            states = last[:, p - 1:p + t - 1]
        return logits, states

    def log_probs(self, model: Any, rollout: Rollout, hidden: bool = False):
        """(sampling-distribution log-probs of the taken actions, their full log-softmax, hidden states)."""
        logits, states = self.forward(model, rollout.prompts, rollout.actions, rollout.valid, hidden)
        logp_all = sampling_log_probs(logits, rollout.action_mask, rollout.temperature)
        return gather(logp_all, rollout.actions), logp_all, states

    def raw_log_probs(self, model: Any, rollout: Rollout) -> torch.Tensor:
        logits, _ = self.forward(model, rollout.prompts, rollout.actions, rollout.valid)
        return gather(torch.log_softmax(logits.float(), -1), rollout.actions)

