"""A local LM as the critic: any model reference (hub id, directory, packaged:<name>), frozen, in
inference mode, on its own device, answering with greedy decoding.

Instruction-tuned models get the prompt as one user turn of their chat template; a model without a
template reads the prompt as plain text. Every prompt of a template shares a long head (the task
definition, the steps, the three examples) and differs only in its last lines, the sample: a
decoder-only critic encodes that shared head once and reuses its key/value cache for every prompt, so
each answer costs the sample's tokens instead of the whole prompt's. Encoder-decoder models (a seq2seq
policy critiquing itself, `critic.backend=self`) answer in plain batches.
"""
from __future__ import annotations

import copy
import inspect
import os
from typing import Any, Optional, Sequence

import torch


def _cache_argument() -> str:
    """generate()'s name for a key/value cache passed in: `cache` in recent transformers, before that
    `past_key_values` (still accepted, with a deprecation warning, until transformers 5.40)."""
    from transformers.generation.utils import GenerationMixin

    params = inspect.signature(GenerationMixin.prepare_inputs_for_generation).parameters
    return "cache" if "cache" in params else "past_key_values"


def shared_head(texts: Sequence[str]) -> str:
    """The longest common start of `texts` that ends a line: at a line boundary the head tokenises the
    same alone as it does inside each whole text, so its cache is valid for all of them. It leaves at
    least one character of every text out, so each row has a token of its own to feed."""
    common = os.path.commonprefix(list(texts))[:min(len(t) for t in texts) - 1]
    return common[:common.rfind("\n") + 1]


class LocalLMCritic:
    def __init__(self, ref: str, device: str = "cpu", batch_size: int = 8, max_new_tokens: int = 96) -> None:
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        from grue.assets import resolve_model

        path = resolve_model(ref)
        self.encoder_decoder = bool(getattr(AutoConfig.from_pretrained(path), "is_encoder_decoder", False))
        model_class = AutoModelForSeq2SeqLM if self.encoder_decoder else AutoModelForCausalLM
        self.model = model_class.from_pretrained(path).to(device).eval().requires_grad_(False)
        self.tokenizer = AutoTokenizer.from_pretrained(path, padding_side="left", truncation_side="left")
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.chat = bool(getattr(self.tokenizer, "chat_template", None))
        self.device, self.batch_size, self.max_new_tokens = device, batch_size, max_new_tokens
        self.identity = f"local:{ref}:greedy:{max_new_tokens}"
        self._head: tuple[str, Optional[torch.Tensor], Any] = ("", None, None)

    def _as_input(self, prompt: str) -> str:
        if self.chat:
            return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                      add_generation_prompt=True)
        return prompt

    def _ids(self, text: str) -> torch.Tensor:
        # a chat template writes its own special tokens; a plain prompt gets the tokenizer's
        return self.tokenizer(text, return_tensors="pt", add_special_tokens=not self.chat)["input_ids"].to(self.device)

    def _head_cache(self, texts: Sequence[str]) -> tuple[str, Optional[torch.Tensor], Any]:
        """The shared head's text, ids and key/value cache, kept while the prompts keep starting with it."""
        kept = self._head[0]
        if not (kept and all(t.startswith(kept) and len(t) > len(kept) for t in texts)):
            head = shared_head(texts) if len(texts) > 1 else ""
            if not head:
                return "", None, None
            ids = self._ids(head)
            out = self.model(input_ids=ids, use_cache=True)
            self._head = (head, ids, out["cache"] if "cache" in out else out["past_key_values"])
        return self._head

    @torch.inference_mode()
    def judge(self, prompts: Sequence[str]) -> list[Optional[str]]:
        texts = [self._as_input(p) for p in prompts]
        chunks = [texts[s:s + self.batch_size] for s in range(0, len(texts), self.batch_size)]
        if self.encoder_decoder:
            return [a for chunk in chunks for a in self._batch(chunk)]
        head, head_ids, cache = self._head_cache(texts)
        if not head:
            return [a for chunk in chunks for a in self._batch(chunk)]
        return [a for chunk in chunks for a in self._batch_after_head(head_ids, cache, [t[len(head):] for t in chunk])]

    def _batch_after_head(self, head_ids: torch.Tensor, cache: Any, tails: Sequence[str]) -> list[str]:
        """Answers for head + each tail, the head's cache copied for every row. Tails are padded on
        their left, between head and tail, and masked there, so every row reads head then its tail."""
        tail_ids = [self._ids(tail)[0] for tail in tails]
        head, width = head_ids[0], max(len(t) for t in tail_ids)
        gaps = [head.new_full((width - len(t),), self.tokenizer.pad_token_id) for t in tail_ids]
        ids = torch.stack([torch.cat([head, gap, t]) for gap, t in zip(gaps, tail_ids)])
        mask = torch.stack([torch.cat([torch.ones_like(head), torch.zeros_like(gap), torch.ones_like(t)])
                            for gap, t in zip(gaps, tail_ids)])
        rows_cache = copy.deepcopy(cache)
        rows_cache.batch_repeat_interleave(len(tails))
        out = self.model.generate(input_ids=ids, attention_mask=mask, **{_cache_argument(): rows_cache}, **self._greedy())
        return self.tokenizer.batch_decode(out[:, ids.shape[1]:], skip_special_tokens=True)

    def _batch(self, texts: Sequence[str]) -> list[str]:
        """Answers for whole prompts, padded on the left."""
        batch = self.tokenizer(list(texts), return_tensors="pt", padding=True,
                               add_special_tokens=not self.chat).to(self.device)
        out = self.model.generate(**batch, **self._greedy())
        return self.tokenizer.batch_decode(out if self.encoder_decoder else out[:, batch["input_ids"].shape[1]:],
                                           skip_special_tokens=True)

    def _greedy(self) -> dict[str, Any]:
        return {"do_sample": False, "max_new_tokens": self.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id,
                "temperature": None, "top_p": None, "top_k": None}
