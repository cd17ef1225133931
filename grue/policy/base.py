"""What every language-model policy shares, whatever its architecture.

The RL trainer and the rollout only talk to this interface, so PPO and NLPO exist once. A subclass
says how prompts become model inputs (`encode`), where generated tokens sit in generate()'s output
(`_actions`), how one pass scores a whole rollout (`forward`), what trunk a separate critic copies
(`value_trunk`) and how the NLPO masking model follows generation (`mask_processor`). Sampling with
its per-step records, log-probs and decoding are the same for both kinds and live here.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import torch
from transformers import GenerationConfig, LogitsProcessor, LogitsProcessorList

from grue.policy.batch import PromptBatch, Rollout
from grue.policy.masking import action_log_probs, gather, sampling_log_probs
from grue.policy.step_records import ChosenTokenLogProbs, recording_pipeline


def valid_actions(actions: torch.Tensor, eos_id: Optional[int]) -> torch.Tensor:
    """1 up to and including the first EOS of each row, 0 after (generate pads finished rows)."""
    if eos_id is None:
        return torch.ones_like(actions, dtype=torch.float32)
    is_eos = (actions == eos_id).long()
    ended_before = is_eos.cumsum(-1) - is_eos
    return (ended_before == 0).float()


def token_ids_only(config: GenerationConfig) -> GenerationConfig:
    """A checkpoint's generation config reduced to its special token ids.

    generate() fills every field a passed config leaves unset from the model's own generation config
    (a checkpoint's generation_config.json) before its global defaults, so a checkpoint that sets, say,
    a repetition penalty would silently change the rollout sampler and break the identity between the
    sampling-time and the recomputed log-probs. With this, grue's config alone decides the sampler.
    """
    keep = ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id")
    return GenerationConfig(**{k: getattr(config, k, None) for k in keep if getattr(config, k, None) is not None})


def uses_grue_decoder(gen: Any) -> bool:
    """Whether `gen` decodes with grue's own loop (grue.policy.decode): `decoder: grue` and no beam search."""
    return getattr(gen, "decoder", "grue") == "grue" and (getattr(gen, "num_beams", 1) or 1) == 1


class LMPolicy:
    is_seq2seq = False

    def __init__(self, model: Any, tokenizer: Any, max_prompt_length: int, padding_side: str,
                 truncation_side: str, device: str) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_prompt_length = max_prompt_length
        # The padding side is passed per call rather than set on the tokenizer: the tokenizer is also
        # used by other code (perplexity pads seq2seq labels with it, and labels must pad right).
        self.padding_side = padding_side
        tokenizer.truncation_side = truncation_side
        self.device = device
        model.generation_config = token_ids_only(model.generation_config)

    # -- the part each architecture defines ------------------------------------------------------
    def encode(self, prompts: Sequence[str]) -> PromptBatch:
        raise NotImplementedError

    def _actions(self, sequences: torch.Tensor, prompts: PromptBatch) -> torch.Tensor:
        """The generated tokens inside generate()'s `sequences`."""
        raise NotImplementedError

    def forward(self, model: Any, prompts: PromptBatch, actions: torch.Tensor, valid: torch.Tensor,
                hidden: bool = False) -> tuple[Optional[torch.Tensor], Optional[torch.Tensor]]:
        """Logits predicting each action [B, T, V] and last hidden states at the same states [B, T, H]."""
        raise NotImplementedError

    def value_trunk(self) -> torch.nn.Module:
        """A fresh copy of the network a separate critic puts its head on (no vocabulary head)."""
        raise NotImplementedError

    def mask_processor(self, mask_model: Any, prompts: PromptBatch, top_p: float, min_tokens_to_keep: int,
                       never_mask: Iterable[int], beams: int = 1) -> LogitsProcessor:
        """The NLPO mask for one generate() call over `prompts` (`beams` rows each), run by `mask_model`."""
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------------------
    @property
    def eos_id(self) -> Optional[int]:
        return self.tokenizer.eos_token_id

    @property
    def hidden_size(self) -> int:
        return self.model.config.hidden_size

    def special_token_ids(self) -> list[int]:
        return sorted({i for i in (self.tokenizer.eos_token_id, self.tokenizer.pad_token_id,
                                   self.tokenizer.bos_token_id) if i is not None})

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
            eos_token_id=self.eos_id, **self._generation_extras(),
        )

    def _generation_extras(self) -> dict[str, Any]:
        return {}

    @torch.no_grad()
    def generate_text(self, prompts: PromptBatch, gen: Any, processors: Sequence[Any] = (),
                      keys: Optional[Sequence[int]] = None) -> list[str]:
        """Evaluation decoding (sampling or beam search; an NLPO run's mask in `processors`); no records.

        grue's decode loop (grue.policy.decode) unless `gen.decoder` is `generate` or beams are searched;
        `keys[i]` keys row i's noise (grue.policy.sampling; None: drawn from torch's global generator)."""
        if uses_grue_decoder(gen):
            from grue.policy.decode import decode
            from grue.policy.sampling import keys_from_global_rng

            rows = prompts.input_ids.shape[0]
            actions = decode(self, prompts, gen, keys if keys is not None else keys_from_global_rng(rows),
                             processors).actions
            return self.decode(actions, valid_actions(actions, self.eos_id))
        out = self.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                  generation_config=self.generation_config(gen),
                                  logits_processor=LogitsProcessorList(list(processors)))
        actions = self._actions(out, prompts)
        return self.decode(actions, valid_actions(actions, self.eos_id))

    @torch.no_grad()
    def sample(self, prompts: PromptBatch, gen: Any, processors: Sequence[Any] = (),
               keys: Optional[Sequence[int]] = None) -> Rollout:
        """Sample episodes, recording what PPO needs at each step: grue's decode loop (grue.policy.decode,
        `keys[i]` keying row i's noise; None: drawn from torch's global generator), or with
        `gen.decoder=generate`, generate() as below."""
        if uses_grue_decoder(gen):
            from grue.policy.decode import decode
            from grue.policy.sampling import keys_from_global_rng

            if (gen.num_beams or 1) > 1:
                raise ValueError("rollouts sample one sequence per prompt (num_beams=1)")
            rows = prompts.input_ids.shape[0]
            out = decode(self, prompts, gen, keys if keys is not None else keys_from_global_rng(rows), processors,
                         record=True)
            return self.rollout_of(prompts, out.actions, out.logp, out.raw_logp, out.allowed, gen)
        return self._sample_with_generate(prompts, gen, processors)

    def _sample_with_generate(self, prompts: PromptBatch, gen: Any, processors: Sequence[Any] = ()) -> Rollout:
        """Sample episodes with generate() and its KV cache, recording what PPO needs at each step.

        The scores generate() samples from are the exact sampling distribution (min length, NLPO mask,
        temperature, top-k), so their finite entries are the action mask and their log-softmax the
        behaviour log-prob; the raw logits give the unmasked log-prob the KL penalty uses. Both are
        recorded as generation goes, one value per action (grue.policy.step_records).
        """
        raw, sampled = ChosenTokenLogProbs(), ChosenTokenLogProbs(keep_allowed=True)
        config, pipeline = recording_pipeline(self.generation_config(gen), list(processors), raw, sampled)
        sequences = self.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                        generation_config=config, logits_processor=LogitsProcessorList(pipeline))
        actions = self._actions(sequences, prompts)
        return self.rollout_of(prompts, actions, sampled.finish(actions), raw.finish(actions), sampled.allowed_mask(),
                               gen)

    def rollout_of(self, prompts: PromptBatch, actions: torch.Tensor, logp: torch.Tensor, raw_logp: torch.Tensor,
                   action_mask: Optional[torch.Tensor], gen: Any) -> Rollout:
        """A Rollout from sampled actions and their per-step records (whichever decoder made them)."""
        valid = valid_actions(actions, self.eos_id)
        # Padding after EOS is usually outside the sampling set (top-k): its log-prob is -inf, and
        # -inf * 0 is NaN. Padded positions are no actions: unrestricted mask, log-prob 0.
        if action_mask is not None:
            action_mask[valid == 0] = True
            if bool(action_mask.all()):
                action_mask = None
        logp = torch.where(valid > 0, logp, torch.zeros_like(logp))
        raw_logp = torch.where(valid > 0, raw_logp, torch.zeros_like(raw_logp))
        return Rollout(prompts, actions, valid, logp, raw_logp, action_mask,
                       gen.temperature if gen.do_sample else 1.0)

    def log_probs(self, model: Any, rollout: Rollout, hidden: bool = False):
        """(sampling-distribution log-probs of the taken actions, their full log-softmax, hidden states)."""
        logits, states = self.forward(model, rollout.prompts, rollout.actions, rollout.valid, hidden)
        logp_all = sampling_log_probs(logits, rollout.action_mask, rollout.temperature)
        return gather(logp_all, rollout.actions), logp_all, states

    def raw_log_probs(self, model: Any, rollout: Rollout) -> torch.Tensor:
        logits, _ = self.forward(model, rollout.prompts, rollout.actions, rollout.valid)
        return action_log_probs(logits, rollout.actions)
