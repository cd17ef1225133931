"""What every language-model policy shares, whatever its architecture.

The RL trainer and the rollout only talk to this interface, so PPO and NLPO exist once. A subclass
says how prompts become model inputs (`encode`), where generated tokens sit in generate()'s output
(`_actions`), how one pass scores a whole rollout (`forward`), what trunk a separate critic copies
(`value_trunk`) and how the NLPO masking model follows generation (`mask_processor`). Sampling with
its per-step records, log-probs and decoding are the same for both kinds and live here.
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Any, Iterable, Iterator, Optional, Sequence

import torch
from transformers import GenerationConfig, LogitsProcessor, LogitsProcessorList

from grue.policy import logprobs
from grue.policy.batch import PromptBatch, Rollout
from grue.policy.masking import gather, sampling_log_probs
from grue.policy.stack_config import decoder_config
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
    # The autocast context of the update's own vocabulary-head work (model.mixed_precision; set by the
    # trainer, which also makes every model's forward autocast): a no-op at full precision.
    autocast = staticmethod(nullcontext)

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
        return decoder_config(self.model.config).hidden_size

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
        `keys[i]` keys row i's noise (grue.policy.sampling; None: drawn from torch's global generator).
        `gen.precision` other than fp32: decoded by a low-precision copy of the weights (grue.policy.precision)."""
        from grue.policy.precision import precision_of, sampling_policy

        sampler = sampling_policy(self, precision_of(gen))
        if sampler is not self:
            return sampler.generate_text(prompts, gen, processors, keys)
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
        """(sampling-distribution log-probs of the taken actions, their full log-softmax, hidden states).

        The whole [B, T, V] log-softmax: for tests and analysis. The update uses `action_stats`."""
        logits, states = self.forward(model, rollout.prompts, rollout.actions, rollout.valid, hidden)
        logp_all = sampling_log_probs(logits, rollout.action_mask, rollout.temperature)
        return gather(logp_all, rollout.actions), logp_all, states

    def action_stats(self, model: Any, rollout: Rollout, hidden: bool = False, entropy_grad: bool = True,
                     chunk: Optional[int] = None) -> tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
        """(sampling-distribution log-probs of the taken actions [B, T], that distribution's entropy
        [B, T], hidden states [B, T, H] when `hidden`), with no [B, T, V] tensor: the vocabulary head
        runs a chunk of positions at a time (grue.policy.logprobs). `entropy_grad=False`: the entropy
        is only logged and carries no gradient."""
        with self.autocast():
            states, head, hidden_states = self._head_inputs(model, rollout, hidden)
            logp, ent = logprobs.sampling_stats(states, rollout.actions, rollout.action_mask, rollout.temperature,
                                                head, entropy_grad, chunk)
        return logp, ent, hidden_states

    def action_and_raw_stats(self, model: Any, rollout: Rollout, entropy_grad: bool = True,
                             chunk: Optional[int] = None,
                             raw_temperature: float = 1.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """`action_stats`' log-probs and entropy, and the unmasked log-probs of the taken actions at
        `raw_temperature` [B, T] (a KL term's, as `raw_log_probs` at 1; kl.temperature's otherwise), from
        one pass and no [B, T, V] tensor."""
        with self.autocast():
            states, head, _ = self._head_inputs(model, rollout, False)
            return logprobs.sampling_and_raw_stats(states, rollout.actions, rollout.action_mask, rollout.temperature,
                                                   head, entropy_grad, chunk, raw_temperature)

    def records_and_states(self, model: Any, rollout: Rollout) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(`action_and_raw_stats`' log-probs and raw log-probs, the last hidden states [B, T, H] that
        `hidden_states` gives), from one pass without gradients: a low-precision sampler's records recomputed by
        the learner, and a shared critic's input (grue.policy.precision)."""
        with torch.no_grad(), self.autocast():
            states, head, hidden_states = self._head_inputs(model, rollout, True)
            logp, _, raw = logprobs.sampling_and_raw_stats(states, rollout.actions, rollout.action_mask,
                                                           rollout.temperature, head, entropy_grad=False)
        return logp, raw, hidden_states

    def raw_log_probs(self, model: Any, rollout: Rollout, chunk: Optional[int] = None) -> torch.Tensor:
        """log softmax(logits) at the taken actions: the policy's own distribution (the KL penalty's)."""
        with self.autocast():
            states, head, _ = self._head_inputs(model, rollout, False)
            return logprobs.raw_log_probs(states, rollout.actions, head, chunk)

    def hidden_states(self, model: Any, rollout: Rollout) -> torch.Tensor:
        """The last hidden states at the states predicting each action [B, T, H], without the vocabulary head."""
        with self.autocast(), output_head_bypassed(model):
            _, states = self.forward(model, rollout.prompts, rollout.actions, rollout.valid, hidden=True)
        return states

    def _head_inputs(self, model: Any, rollout: Rollout, hidden: bool):
        """(the vocabulary head's inputs at each action's state, the head, hidden states when `hidden`).

        The model's output embedding is swapped for an identity for the pass, so the "logits" forward()
        slices out are the head's inputs. Where that is not the same function (a sharded head, a model
        that transforms its logits after the head: checked once per model class), the head is None and
        the "states" are the logits themselves."""
        if splits_head(model, lambda: self._head_check(model, rollout)):
            with output_head_bypassed(model) as head:
                states, hidden_states = self.forward(model, rollout.prompts, rollout.actions, rollout.valid, hidden)
            return states, head, hidden_states
        logits, hidden_states = self.forward(model, rollout.prompts, rollout.actions, rollout.valid, hidden)
        return logits, None, hidden_states

    @torch.no_grad()
    def _head_check(self, model: Any, rollout: Rollout) -> bool:
        """Whether head(bypassed pass) gives the logits of the plain pass, on one episode."""
        one = rollout.select([0])
        logits, _ = self.forward(model, one.prompts, one.actions, one.valid)
        with output_head_bypassed(model) as head:
            states, _ = self.forward(model, one.prompts, one.actions, one.valid)
        if head is None or logits is None:
            return False
        logits, again = logits.float(), head(states).float()
        scale = logits.abs().max().clamp(min=1.0)
        return again.shape == logits.shape and bool(((again - logits).abs().max() <= 2e-2 * scale))


# Post-head transforms that rule the split out without a check (Gemma 2's soft-capping, Cohere's scale).
_HEAD_TRANSFORMS = ("final_logit_softcapping", "logit_scale", "output_multiplier_scale")
_SPLITS: dict[type, bool] = {}


def _language_model(model: Any) -> Any:
    """The module whose output embedding a pass of `model` runs (a view of a LoRA model names its own)."""
    inner = getattr(model, "language_model_for_head", None)
    return inner() if callable(inner) else model


def splits_head(model: Any, check: Any) -> bool:
    """Whether the vocabulary head of `model` can run apart from its trunk (cached per model class)."""
    lm = _language_model(model)
    get = getattr(lm, "get_output_embeddings", None)
    head = get() if callable(get) else None
    if head is None or _owner_of(lm, head) is None:
        return False
    from grue.runtime.sharding import is_sharded

    if any(is_sharded(p) for p in head.parameters()):
        return False  # a sharded head is gathered by its model's root unit, during that unit's forward only
    config = getattr(lm, "config", None)
    if any(getattr(config, name, None) not in (None, 1, 1.0) for name in _HEAD_TRANSFORMS):
        return False
    kind = type(lm)
    if kind not in _SPLITS:
        _SPLITS[kind] = bool(check())
    return _SPLITS[kind]


def _owner_of(lm: Any, head: Any) -> Optional[str]:
    for name, child in lm.named_children():
        if child is head:
            return name
    return None


@contextmanager
def output_head_bypassed(model: Any) -> Iterator[Optional[torch.nn.Module]]:
    """For one pass: the model's output embedding replaced by an identity (its "logits" are the head's
    inputs); yields the head itself, or None when the model has no separable one (then nothing changes)."""
    lm = _language_model(model)
    get = getattr(lm, "get_output_embeddings", None)
    head = get() if callable(get) else None
    name = _owner_of(lm, head) if head is not None else None
    if name is None:
        yield None
        return
    setattr(lm, name, torch.nn.Identity())
    try:
        yield head
    finally:
        setattr(lm, name, head)
