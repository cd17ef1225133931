"""A local LM as the critic: any model reference (hub id, directory, packaged:<name>), frozen, in
inference mode, on its own device, answering in batches with greedy decoding.

Instruction-tuned models get the prompt as one user turn of their chat template; a model without a
template reads the prompt as plain text. Decoder-only and encoder-decoder models both work, so a
seq2seq policy can critique itself (`critic.backend=self`).
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch


class LocalLMCritic:
    def __init__(self, ref: str, device: str = "cpu", batch_size: int = 8, max_new_tokens: int = 96) -> None:
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        from grue.assets import resolve_model

        path = resolve_model(ref)
        self.encoder_decoder = bool(getattr(AutoConfig.from_pretrained(path), "is_encoder_decoder", False))
        model_class = AutoModelForSeq2SeqLM if self.encoder_decoder else AutoModelForCausalLM
        self.model = model_class.from_pretrained(path).to(device).eval().requires_grad_(False)
        self.tokenizer = AutoTokenizer.from_pretrained(path, padding_side="left")
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.chat = bool(getattr(self.tokenizer, "chat_template", None))
        self.device, self.batch_size, self.max_new_tokens = device, batch_size, max_new_tokens
        self.identity = f"local:{ref}:greedy:{max_new_tokens}"

    def _as_input(self, prompt: str) -> str:
        if self.chat:
            return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                      add_generation_prompt=True)
        return prompt

    @torch.inference_mode()
    def judge(self, prompts: Sequence[str]) -> list[Optional[str]]:
        answers: list[Optional[str]] = []
        for start in range(0, len(prompts), self.batch_size):
            texts = [self._as_input(p) for p in prompts[start:start + self.batch_size]]
            batch = self.tokenizer(texts, return_tensors="pt", padding=True,
                                   add_special_tokens=not self.chat)  # a chat template adds its own.to(self.device)
            out = self.model.generate(**batch, do_sample=False, max_new_tokens=self.max_new_tokens,
                                      pad_token_id=self.tokenizer.pad_token_id, temperature=None, top_p=None,
                                      top_k=None)
            new = out if self.encoder_decoder else out[:, batch["input_ids"].shape[1]:]
            answers.extend(self.tokenizer.batch_decode(new, skip_special_tokens=True))
        return answers
