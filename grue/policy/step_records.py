"""What a rollout records while generate() samples: each step's log-prob of the token it took.

PPO needs, for every action, its log-prob under the sampling distribution (after the NLPO mask, the
min-length rule, temperature and top-k/top-p) and under the raw policy (for the KL penalty), plus
the set of tokens the sampling distribution allowed when that set is not the whole vocabulary.
Asking generate() for `output_scores` and `output_logits` keeps two [B, V] tensors for every step,
[B, T, V] each once stacked: ~150 MB apiece for 16 episodes of 48 tokens with SmolLM2's 49k
vocabulary, plus their stacked copies, which is most of what sampling holds above the models
(`python scripts/bench_rollout.py` measures the sampling call's peak RSS both ways).

Instead two logits processors sit in generate()'s own pipeline: one first, where it sees the raw
logits, and one last, where it sees the scores generate() samples from. Each keeps only the last
step's log-softmax until the next call shows which token that step took (the last column of
input_ids); the final step is settled from the returned sequences. For the first recorder to see
raw logits, the processors generate() would insert before user processors (here only the
min-new-tokens rule; grue's generation config sets nothing else) and the sampling warpers it would
append after them are rebuilt here from the same config, with the same transformers classes, in
generate()'s order, and switched off in the config generate() is given. The samples and values
are then those of generate()'s own pipeline (tested token for token against it).
"""
from __future__ import annotations

import copy
from typing import Any, Optional, Sequence

import torch
from transformers import (GenerationConfig, LogitsProcessor, MinNewTokensLengthLogitsProcessor,
                          TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper)


class ChosenTokenLogProbs(LogitsProcessor):
    """Records log softmax(scores) at the token each step took; returns the scores unchanged."""

    def __init__(self, keep_allowed: bool = False) -> None:
        self.keep_allowed = keep_allowed
        self.values: list[torch.Tensor] = []          # [B] per settled step
        self.allowed: list[Optional[torch.Tensor]] = []  # [B, V] bool per step, None where all allowed
        # the last step's scores (as float), their version counter and logsumexp; the token is not yet known
        self._pending: Optional[tuple[torch.Tensor, int, torch.Tensor]] = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self._settle(input_ids[:, -1])
        as_float = scores.float()
        # x - logsumexp(x), the arithmetic of masking.action_log_probs, is subtracted at the chosen token
        # only (the same float operation on the same two numbers, so the same value) instead of over the
        # whole vocabulary at every step
        self._pending = (as_float, as_float._version, torch.logsumexp(as_float, dim=-1, keepdim=True))
        if self.keep_allowed:
            finite = torch.isfinite(scores)
            self.allowed.append(None if bool(finite.all()) else finite)
        return scores

    def _settle(self, tokens: torch.Tensor) -> None:
        if self._pending is not None:
            scores, version, lse = self._pending
            if scores._version != version:  # a later processor wrote into the scores this recorder kept
                raise RuntimeError("a logits processor after a rollout recorder changed its scores in place")
            self.values.append((scores.gather(-1, tokens.unsqueeze(-1)) - lse).squeeze(-1))
            self._pending = None

    def finish(self, actions: torch.Tensor) -> torch.Tensor:
        """[B, T] log-probs of `actions`, the tokens generate() returned after the prompt."""
        self._settle(actions[:, -1])
        if len(self.values) != actions.shape[1]:
            raise RuntimeError(f"recorded {len(self.values)} generation steps for {actions.shape[1]} actions")
        return torch.stack(self.values, dim=1)

    def allowed_mask(self) -> Optional[torch.Tensor]:
        """[B, T, V] tokens the scores left finite at each step, or None when every step allowed all."""
        if all(step is None for step in self.allowed):
            return None
        everything = torch.ones_like(next(step for step in self.allowed if step is not None))
        return torch.stack([step if step is not None else everything for step in self.allowed], dim=1)


class _MinNewTokens(LogitsProcessor):
    """transformers' min-new-tokens rule, told the prompt length by the first call (the prompt width
    for a decoder-only model, the decoder start for an encoder-decoder), as generate() tells it."""

    def __init__(self, min_new_tokens: int, eos_token_id: Any) -> None:
        self.min_new_tokens = min_new_tokens
        self.eos_token_id = eos_token_id
        self._rule: Optional[MinNewTokensLengthLogitsProcessor] = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self._rule is None:
            self._rule = MinNewTokensLengthLogitsProcessor(input_ids.shape[-1], self.min_new_tokens,
                                                           self.eos_token_id, device=scores.device)
        return self._rule(input_ids, scores)


def recording_pipeline(config: GenerationConfig, processors: Sequence[LogitsProcessor], raw: ChosenTokenLogProbs,
                       sampled: ChosenTokenLogProbs) -> tuple[GenerationConfig, list[LogitsProcessor]]:
    """(the config to give generate(), the processors to give it) so that `raw` sees the raw logits
    and `sampled` the scores generate() samples from, with the same sampling as `config` alone."""
    if (config.num_beams or 1) > 1:
        raise ValueError("rollouts sample one sequence per prompt (num_beams=1)")
    pipeline: list[LogitsProcessor] = [raw]
    plain = copy.deepcopy(config)
    if config.min_new_tokens:
        pipeline.append(_MinNewTokens(config.min_new_tokens, config.eos_token_id))
        plain.min_new_tokens = None
    pipeline += list(processors)
    if config.do_sample:  # generate()'s warpers, in its order, with its min_tokens_to_keep for one beam
        if config.temperature is not None and config.temperature != 1.0:
            pipeline.append(TemperatureLogitsWarper(config.temperature))
        if config.top_k is not None and config.top_k != 0:
            pipeline.append(TopKLogitsWarper(top_k=config.top_k, min_tokens_to_keep=1))
        if config.top_p is not None and config.top_p < 1.0:
            pipeline.append(TopPLogitsWarper(top_p=config.top_p, min_tokens_to_keep=1))
        plain.temperature, plain.top_k, plain.top_p = 1.0, 0, 1.0
    pipeline.append(sampled)
    return plain, pipeline
