"""grue's own decode loop, used by the rollout sampler and by evaluation (`decoder: grue`, the default).

What it does that `model.generate` at a fixed batch does not:
- Batches as large as a memory budget allows (`max_batch_rows`, 0: sized from the model and the budget
  below): a whole rollout round or evaluation split in one decode where it fits, cut into buckets of
  prompts of similar length (sorted) where it does not, so short prompts carry little padding.
- Rows leave the batch as soon as they end (EOS): the model, the sampler and the cache only ever
  process live rows. Processors that can drop rows too (NLPO's mask: `select(keep)`) go along, so NLPO
  decodes PPO's batches; a processor without `select` keeps every row in, finished ones fed padding as
  generate() does.
- Evaluation's matrix products on weights packed once per decode for oneDNN (grue.policy.packed_linear).
- A key-value cache preallocated for the whole decode (one buffer per layer written in place) instead of
  one concatenation per step, which copies the whole cache at every token.
- Sampling in one fused pass: the min-length rule, the processors, temperature, top-k and top-p are one
  function over the vocabulary (top-k draws among the k candidates only), and the records PPO needs (the
  sampled and the raw log-prob of the chosen token, the allowed set) come out of the same pass.
- Noise keyed per episode and step, never per batch: every row has its own uniform stream, seeded from
  the caller's key for that episode (grue.policy.sampling), and step t draws the row's t-th uniform by
  inverse CDF. Any batch size, bucketing or process count draws the same tokens for the same keys (up
  to float rounding of the logits, which moves a draw only when its uniform falls within ~1e-7 of a
  boundary of the cumulative distribution).

Beam search (num_beams > 1) stays with generate(). `decoder: generate` keeps generate() for everything
(the behaviour before this module, with the noise of torch's global generator), for comparisons.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import torch
from transformers import DynamicCache, EncoderDecoderCache
from transformers.cache_utils import Cache, DynamicLayer

from grue.policy.batch import PromptBatch, position_ids
from grue.policy.mask_processor import cache_argument
from grue.policy.packed_linear import packed_linears
from grue.policy.sampling import FusedSampler, row_uniforms
from grue.policy.stack_config import decoder_config

# Bytes a decode may hold for its rows (KV cache, vocabulary-sized work, records) when max_batch_rows is 0.
MEMORY_BUDGET = 2 << 30


class _PreallocatedLayer(DynamicLayer):
    """A DynamicLayer whose keys and values live in one buffer sized for the whole decode, written in place;
    `keys`/`values` are views of the filled part, so attention and masks see exactly what DynamicLayer shows."""

    def __init__(self, capacity: int) -> None:
        super().__init__()
        self.capacity = capacity
        self.length = 0

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        self.device = key_states.device
        b, h, _, d = key_states.shape
        self._keys = key_states.new_empty(b, h, self.capacity, d)
        self._values = value_states.new_empty(b, value_states.shape[1], self.capacity, value_states.shape[-1])
        self.is_initialized = True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        n = key_states.shape[-2]
        if self.length + n > self.capacity:
            raise RuntimeError(f"decode cache holds {self.capacity} positions, asked for {self.length + n}")
        self._keys[:, :, self.length:self.length + n].copy_(key_states)
        self._values[:, :, self.length:self.length + n].copy_(value_states)
        self.length += n
        self.keys, self.values = self._keys[:, :, :self.length], self._values[:, :, :self.length]
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.length

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.is_initialized:
            self._keys, self._values = self._keys[indices], self._values[indices]
            self.keys, self.values = self._keys[:, :, :self.length], self._values[:, :, :self.length]


class PreallocatedCache(DynamicCache):
    """DynamicCache's interface over preallocated layers (one per decoder layer)."""

    def __init__(self, layers: int, capacity: int) -> None:
        Cache.__init__(self, layers=[_PreallocatedLayer(capacity) for _ in range(layers)])


def _decoder_layers(config: Any) -> int:
    for name in ("num_decoder_layers", "num_hidden_layers", "n_layer", "num_layers"):
        value = getattr(config, name, None)
        if value:
            return int(value)
    raise ValueError("cannot tell how many decoder layers the model has")


def row_bytes(model: Any, prompt_tokens: int, new_tokens: int, record: bool) -> int:
    """Bytes one row of a decode holds: its KV cache (self-attention, and cross-attention over the prompt
    for an encoder-decoder), a few vocabulary-sized float vectors, and its records when recording."""
    c = decoder_config(model.config)
    heads = getattr(c, "num_key_value_heads", None) or getattr(c, "num_heads", None) or c.num_attention_heads
    head_dim = getattr(c, "head_dim", None) or getattr(c, "d_kv", None) or c.hidden_size // c.num_attention_heads
    element = next(model.parameters()).element_size()
    positions = new_tokens + (prompt_tokens * 2 if model.config.is_encoder_decoder else prompt_tokens)
    cache = _decoder_layers(c) * 2 * heads * head_dim * positions * element
    vocab = c.vocab_size
    return cache + 6 * vocab * 4 + (new_tokens * vocab if record else 0) + new_tokens * 16


def batch_rows(model: Any, gen: Any, prompt_tokens: int, record: bool) -> int:
    """Rows one decode batch may hold: `max_batch_rows` when set, else what MEMORY_BUDGET fits (at least 1)."""
    set_rows = int(getattr(gen, "max_batch_rows", 0) or 0)
    if set_rows > 0:
        return set_rows
    return max(1, MEMORY_BUDGET // row_bytes(model, prompt_tokens, int(gen.max_new_tokens), record))


@dataclass
class Decoded:
    actions: torch.Tensor                   # [B, T] token ids, padding after a row's EOS
    logp: Optional[torch.Tensor] = None     # [B, T] sampling-distribution log-prob of each action (record)
    raw_logp: Optional[torch.Tensor] = None  # [B, T] raw policy log-prob of each action (record)
    allowed: Optional[torch.Tensor] = None  # [B, T, V] tokens the sampling distribution allowed, None: all


class _Records:
    def __init__(self, rows: int, steps: int, vocab: int, device: Any) -> None:
        self.logp = torch.zeros(rows, steps, device=device)
        self.raw_logp = torch.zeros(rows, steps, device=device)
        self.allowed: Optional[torch.Tensor] = None
        self.shape = (rows, steps, vocab)

    def put(self, rows: torch.Tensor, t: int, logp: torch.Tensor, raw_logp: torch.Tensor,
            allowed: Optional[torch.Tensor]) -> None:
        self.logp[rows, t] = logp
        self.raw_logp[rows, t] = raw_logp
        if allowed is not None:
            if self.allowed is None:
                self.allowed = torch.ones(self.shape, dtype=torch.bool, device=allowed.device)
            self.allowed[rows, t] = allowed


@torch.no_grad()
def decode(policy: Any, prompts: PromptBatch, gen: Any, keys: Sequence[int], processors: Sequence[Any] = (),
           record: bool = False) -> Decoded:
    """One batch: sample (or take the argmax, do_sample=false) up to `gen.max_new_tokens` tokens per prompt.

    `keys[i]` seeds row i's noise; `processors` are generate()-style logits processors (NLPO's mask) run
    after the min-length rule and before temperature/top-k/top-p, given generate()'s input_ids.
    Without records (evaluation) the matrix products run on packed oneDNN weights (grue.policy.packed_linear:
    the same products to float rounding); a rollout's records keep torch's own products, the ones the
    update recomputes them with."""
    with packed_linears(policy.model, enabled=not record):
        return _decode(policy, prompts, gen, keys, processors, record)


def _decode(policy: Any, prompts: PromptBatch, gen: Any, keys: Sequence[int], processors: Sequence[Any],
            record: bool) -> Decoded:
    model, eos, pad = policy.model, policy.eos_id, policy.tokenizer.pad_token_id
    rows, steps = prompts.input_ids.shape[0], int(gen.max_new_tokens)
    device = prompts.input_ids.device
    sampler = FusedSampler(gen, eos)
    uniforms = row_uniforms(keys, steps).to(device) if gen.do_sample else None
    processors = list(processors)
    # Rows that end leave the batch when every processor can follow (select); else they stay in, fed padding.
    drop = all(callable(getattr(p, "select", None)) for p in processors)
    actions = torch.full((rows, steps), pad, dtype=torch.long, device=device)
    records: Optional[_Records] = None
    live = torch.arange(rows, device=device)       # original index of each row still decoding
    done = torch.zeros(rows, dtype=torch.bool, device=device)  # kept-in rows that have ended
    step = _CausalSteps(policy, prompts, steps) if not policy.is_seq2seq else _Seq2SeqSteps(policy, prompts, steps)
    logits = step.first()
    ran = 0
    for t in range(steps):
        context = step.input_ids() if processors else None
        tokens, logp, raw_logp, allowed = sampler(logits, t, None if uniforms is None else uniforms[live, t],
                                                  processors, context, record)
        if not drop and eos is not None:
            tokens = torch.where(done, torch.full_like(tokens, pad), tokens)
        actions[live, t] = tokens
        if record:
            if records is None:
                records = _Records(rows, steps, logits.shape[-1], device)
            records.put(live, t, logp, raw_logp, allowed)
        ran = t + 1
        ended = (tokens == eos) if eos is not None else torch.zeros_like(tokens, dtype=torch.bool)
        if drop:
            if bool(ended.all()) or t == steps - 1:
                break
            if bool(ended.any()):
                keep = (~ended).nonzero().squeeze(-1)
                live, tokens = live[keep], tokens[keep]
                step.select(keep)
                for processor in processors:
                    processor.select(keep)
        else:
            done = done | ended
            if bool(done.all()) or t == steps - 1:
                break
        logits = step.next(tokens)
    out = Decoded(actions[:, :ran])
    if records is not None:
        out.logp, out.raw_logp = records.logp[:, :ran], records.raw_logp[:, :ran]
        out.allowed = records.allowed[:, :ran] if records.allowed is not None else None
    return out


class _CausalSteps:
    """A decoder-only model: the prompt (left-padded) then one token a step, positions skipping padding."""

    def __init__(self, policy: Any, prompts: PromptBatch, steps: int) -> None:
        self.model = policy.model
        self.prompts = prompts
        self.attention = prompts.attention_mask
        self.positions = position_ids(self.attention)
        self.cache = PreallocatedCache(_decoder_layers(self.model.config), prompts.input_ids.shape[1] + steps)
        self.cache_arg = cache_argument(self.model)
        self.sequences = prompts.input_ids  # generate()'s input_ids, for processors

    def _logits(self, out: Any) -> torch.Tensor:
        return out.logits[:, -1].float()

    def first(self) -> torch.Tensor:
        out = self.model(input_ids=self.prompts.input_ids, attention_mask=self.attention, position_ids=self.positions,
                         use_cache=True, logits_to_keep=1, **{self.cache_arg: self.cache})
        self.next_position = self.positions[:, -1:] + 1
        return self._logits(out)

    def input_ids(self) -> torch.Tensor:
        return self.sequences

    def next(self, tokens: torch.Tensor) -> torch.Tensor:
        tokens = tokens.unsqueeze(-1)
        self.sequences = torch.cat([self.sequences, tokens], dim=1)
        self.attention = torch.cat([self.attention, torch.ones_like(tokens, dtype=self.attention.dtype)], dim=1)
        out = self.model(input_ids=tokens, attention_mask=self.attention, position_ids=self.next_position,
                         use_cache=True, logits_to_keep=1, **{self.cache_arg: self.cache})
        self.next_position = self.next_position + 1
        return self._logits(out)

    def select(self, keep: torch.Tensor) -> None:
        self.attention, self.next_position = self.attention[keep], self.next_position[keep]
        self.sequences = self.sequences[keep]
        self.cache.batch_select_indices(keep)


class _Seq2SeqSteps:
    """An encoder-decoder model: the prompt encoded once; the decoder starts from its start token."""

    def __init__(self, policy: Any, prompts: PromptBatch, steps: int) -> None:
        self.model = policy.model
        self.attention = prompts.attention_mask
        self.encoded = self.model.get_encoder()(input_ids=prompts.input_ids, attention_mask=self.attention)
        self.sequences = torch.full((prompts.input_ids.shape[0], 1), policy.decoder_start_id,
                                    dtype=torch.long, device=prompts.input_ids.device)
        layers = _decoder_layers(decoder_config(self.model.config))
        self.cache = EncoderDecoderCache(PreallocatedCache(layers, steps + 1), DynamicCache())
        self.cache_arg = cache_argument(self.model)

    def _run(self, decoder_ids: torch.Tensor) -> torch.Tensor:
        out = self.model(encoder_outputs=self.encoded, attention_mask=self.attention, decoder_input_ids=decoder_ids,
                         use_cache=True, **{self.cache_arg: self.cache})
        return out.logits[:, -1].float()

    def first(self) -> torch.Tensor:
        return self._run(self.sequences)

    def input_ids(self) -> torch.Tensor:
        return self.sequences

    def next(self, tokens: torch.Tensor) -> torch.Tensor:
        tokens = tokens.unsqueeze(-1)
        self.sequences = torch.cat([self.sequences, tokens], dim=1)
        return self._run(tokens)

    def select(self, keep: torch.Tensor) -> None:
        self.attention, self.sequences = self.attention[keep], self.sequences[keep]
        self.encoded.last_hidden_state = self.encoded.last_hidden_state[keep]
        self.cache.self_attention_cache.batch_select_indices(keep)
        self.cache.cross_attention_cache.batch_select_indices(keep)


# -- many prompts: buckets up to the memory cap, results in the callers' order ------------------------------
def buckets(lengths: Sequence[int], cap: int) -> list[list[int]]:
    """Row indices in groups of at most `cap`: everything at once when it fits, else sorted by prompt length
    (longest first) and cut into consecutive groups, so each group's padding is small."""
    order = list(range(len(lengths)))
    if len(order) <= cap:
        return [order] if order else []
    order.sort(key=lambda i: -lengths[i])
    return [order[i:i + cap] for i in range(0, len(order), cap)]


def trim(prompts: PromptBatch, side: str) -> PromptBatch:
    """The prompts without the padding columns no row of theirs needs."""
    width = int(prompts.attention_mask.sum(-1).max()) if prompts.attention_mask.numel() else 0
    width = max(width, 1)
    if width >= prompts.input_ids.shape[1]:
        return prompts
    cut = slice(-width, None) if side == "left" else slice(0, width)
    return PromptBatch(prompts.input_ids[:, cut], prompts.attention_mask[:, cut])


def decode_many(policy: Any, prompts: PromptBatch, gen: Any, keys: Sequence[int],
                make_processors: Optional[Callable[[PromptBatch], Sequence[Any]]] = None, record: bool = False,
                progress: Optional[Callable[[int], None]] = None) -> list[tuple[list[int], PromptBatch, Decoded]]:
    """`decode` over every prompt, in buckets: (row indices into `prompts`, the bucket's prompts, its result)."""
    lengths = prompts.attention_mask.sum(-1).tolist()
    cap = batch_rows(policy.model, gen, int(max(lengths, default=1)), record)
    out = []
    for rows in buckets(lengths, cap):
        bucket = trim(prompts.select(rows), policy.padding_side)
        processors = make_processors(bucket) if make_processors else ()
        out.append((rows, bucket, decode(policy, bucket, gen, [keys[i] for i in rows], processors, record)))
        if progress is not None:
            progress(len(rows))
    return out
