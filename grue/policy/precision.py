"""The sampler's precision apart from the learner's (`rollout.precision`, `generation.precision`; issue 44).

Decoding a rollout round of a 135M model on a CPU is bound by reading its weights once per token, so a
bf16 copy of the weights decodes faster than the fp32 ones (half the bytes; `make bench-generation`
times both). Every RL framework of today samples that way (vLLM or SGLang in bf16) and learns in full
precision; the policy, reference, critic and optimizer here stay as they are (fp32 unless model.dtype or
model.mixed_precision say otherwise), and only the sampler reads the low-precision copy. (On a CPU the copy
decodes on torch's own bf16 products: oneDNN's packed bf16 weights, grue.policy.packed_linear, were slightly
slower than torch's bf16 mm at 16-32 rows when tried, one thread.)

What the update learns from is then the learner's, not the sampler's: `with_learner_log_probs` recomputes
the "old" log-probs (and the raw ones the KL penalty reads) with one forward of the learner over the
sampled tokens, under the distribution the sampler drew from: its recorded support (top-k/top-p, NLPO's
mask, the min-length rule: the rollout's action mask) and temperature, not the whole vocabulary. The
sampler's own log-probs stay beside them (`Rollout.sampler_logp`) for the mismatch that is logged every
iteration (grue/train/rl/mismatch.py) and for truncated importance weights (`ppo.tis_cap`).

A stale copy is impossible by construction: `sampling_policy` hands out the copy only after checking that
nothing can have written the learner's weights since the copy was made, and refreshes it otherwise. Two
signs are read: the parameters' version counters (bumped by in-place writes: load_state_dict, a resume,
copy_) and a count of every optimizer step taken in the process (torch's global step hook), because torch's
fused AdamW, the trainer's, writes the weights without bumping their version counters.
"""
from __future__ import annotations

import copy
from typing import Any, Optional

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

EXACT = "fp32"
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
_CACHE = "_grue_sampler_copy"
_VIEW_OF = "_grue_sampler_of"


def precision_of(gen: Any) -> str:
    """A decoding group's sampler precision (`fp32` for configs from before the setting)."""
    value = gen.get("precision", EXACT) if hasattr(gen, "get") else getattr(gen, "precision", EXACT)
    return str(value or EXACT)


_optimizer_steps = [0]


def _count_step(*_: Any) -> None:
    _optimizer_steps[0] += 1


register_optimizer_step_post_hook(_count_step)


def weights_version(model: torch.nn.Module) -> tuple[int, ...]:
    """The optimizer steps taken so far in the process, and the identity and version counter of every parameter
    and buffer: changes whenever any is written in place or replaced, or any optimizer stepped."""
    out: list[int] = [_optimizer_steps[0]]
    for tensor in (*model.parameters(), *model.buffers()):
        out += [id(tensor), tensor._version]
    return tuple(out)


def _contiguous_input(module: torch.nn.Module, args: tuple) -> tuple:
    return (args[0].contiguous(), *args[1:])


def _low_precision_clone(model: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    """A frozen copy of `model` in `dtype`. Its vocabulary head gets contiguous inputs: the prompt pass keeps only
    the last position's hidden state (logits_to_keep=1, a strided view), and torch's CPU matmul runs such a bf16
    [B, 1, H] view against the head as a batched product over B expanded copies of the whole [H, V] weight
    (the largest single cost of a bf16 decode of SmolLM2 under torch.profiler); contiguous, it is one mm."""
    clone = copy.deepcopy(model).to(dtype).eval()
    for p in clone.parameters():
        p.requires_grad_(False)
    get = getattr(clone, "get_output_embeddings", None)
    head = get() if callable(get) else None
    if isinstance(head, torch.nn.Module):
        head.register_forward_pre_hook(_contiguous_input)
    return clone


class LowPrecisionCopy:
    """A frozen copy of `model` in `dtype`, refreshed from `model` whenever the latter has changed."""

    def __init__(self, model: torch.nn.Module, dtype: torch.dtype) -> None:
        self.source, self.dtype = model, dtype
        self.model = _low_precision_clone(model, dtype)
        self.version = weights_version(model)
        self.refreshes = 0  # copies made after the first (tests and the log read it)

    def current(self) -> torch.nn.Module:
        """The copy, made equal to the source's present weights first if they moved since the last copy."""
        version = weights_version(self.source)
        if version != self.version:
            self._refresh()
            self.version = version
        return self.model

    @torch.no_grad()
    def _refresh(self) -> None:
        mine = list(self.model.parameters()) + list(self.model.buffers())
        theirs = list(self.source.parameters()) + list(self.source.buffers())
        if len(mine) != len(theirs) or any(a.shape != b.shape for a, b in zip(mine, theirs)):
            self.model = _low_precision_clone(self.source, self.dtype)  # the source's layout changed
        else:
            for a, b in zip(mine, theirs):
                a.copy_(b)  # cast on copy; integer buffers keep their dtype (`to` left them as they were)
        self.refreshes += 1


def sampling_policy(policy: Any, precision: str) -> Any:
    """The policy the sampler decodes with: `policy` itself at fp32, else a view of it (same tokenizer and
    settings) whose model is the low-precision copy of `policy.model`'s present weights."""
    if precision == EXACT or getattr(policy, _VIEW_OF, None) is not None:
        return policy
    if precision not in DTYPES:
        raise ValueError(f"unknown sampler precision {precision!r}: one of {EXACT}, {', '.join(DTYPES)}")
    from grue.runtime.sharding import is_sharded

    if any(is_sharded(p) for p in policy.model.parameters()):
        from grue.errors import GrueUserError

        raise GrueUserError(f"rollout.precision={precision} needs the whole policy on each process; sharded runs "
                            "(shard=full|grad_op) sample at fp32")
    cached: Optional[LowPrecisionCopy] = policy.__dict__.get(_CACHE)
    if cached is None or cached.dtype != DTYPES[precision] or cached.source is not policy.model:
        cached = LowPrecisionCopy(policy.model, DTYPES[precision])
        policy.__dict__[_CACHE] = cached
    view = copy.copy(policy)
    view.__dict__.pop(_CACHE, None)
    view.model = cached.current()
    view.__dict__[_VIEW_OF] = policy
    return view


@torch.no_grad()
def with_learner_log_probs(policy: Any, rollout: Any) -> Any:
    """`rollout` (sampled by a low-precision copy) with `logp` and `raw_logp` recomputed by the learner in
    one forward over the sampled tokens: `logp` under the sampler's recorded support and temperature, `raw_logp`
    over the whole vocabulary at temperature 1 (the KL's); the sampler's log-probs kept as `sampler_logp`, and the
    pass's last hidden states as `learner_states` (a shared critic's values read them instead of another pass)."""
    import dataclasses

    logp, raw, states = policy.records_and_states(policy.model, rollout)
    valid = rollout.valid > 0
    zeros = torch.zeros_like(rollout.logp)
    return dataclasses.replace(rollout, logp=torch.where(valid, logp.to(zeros.dtype), zeros),
                               raw_logp=torch.where(valid, raw.to(zeros.dtype), zeros), sampler_logp=rollout.logp,
                               learner_states=states)
