"""Per-token log-probs and entropy without [B, T, V] tensors.

The update needs, per action, one number from the vocabulary distribution (the taken token's
log-prob) and, at most, one more (the entropy). Computing them from a whole [B, T, V] logits tensor,
its float32 log-softmax and the autograd graph of both makes the update's peak memory grow with
batch x length x vocabulary (SmolLM2's vocabulary is 49,152: 16 episodes of 48 tokens hold 150 MB per
float32 copy, several copies live at once). Here the vocabulary head runs on the last hidden states a
chunk of positions at a time, and each chunk is checkpointed: its logits and log-softmax are freed as
soon as the chunk's two numbers per position are out, and made again, one chunk at a time, in the
backward pass. Peak memory for this part is one chunk's, whatever B and T; the price is a second
head product per chunk in the backward pass.

Where the head is a plain `nn.Linear` run without autocast (the fp32 update) and the entropy is only
logged (no entropy bonus), a chunk is one autograd function (`_LinearHeadStats`) instead of a checkpointed
region: its forward runs the same operations as the checkpointed one (the same values) and keeps the
chunk's head inputs and the log-probs at the actions (which give each position's log-normaliser back); its
backward makes the head product again and writes the gradient of the logits straight from the softmax,
g (onehot(a) - p) / T, in place in that one [rows, V] buffer (one buffer for the sampling and the KL's
log-probs when they are the same distribution), then the two products of the head's backward. The
checkpointed region runs the whole forward again in the backward pass (the logged entropy included) and
then autograd's chain of vocabulary-sized backward steps (the gather's scatter, log-softmax's and
logsumexp's backward, their sum). Gradients agree with autograd's to float32 rounding
(tests/policy/test_chunked_logprobs.py, tests/train/rl/test_critic_free_chunked_loss.py).

How the policy gets the head's input without running the head is the policy's business
(grue.policy.base: the model's output embedding is swapped for an identity during the pass). A model
whose head cannot be split from its trunk (a sharded one) passes logits instead (`head=None`), and
only the log-softmax work is chunked.

Chunked and whole-tensor results agree to float32 rounding (tests/policy/test_chunked_logprobs.py
states the tolerances); the log-softmax of each position is computed by the same operations either way.
"""
from __future__ import annotations

from typing import Callable, Optional

import torch
from torch.utils.checkpoint import checkpoint

from grue.policy.masking import entropy, gather, sampling_log_probs

# Elements of one chunk's [rows, V] logits: 2^23 float32 is 32 MiB per copy (a few copies live at once).
CHUNK_ELEMENTS = 1 << 23

Head = Optional[Callable[[torch.Tensor], torch.Tensor]]


def chunk_length(rows: int, width: int, budget: int = CHUNK_ELEMENTS) -> int:
    """Positions per chunk so that rows x positions x width stays within `budget` elements (at least one)."""
    return max(1, budget // max(1, rows * width))


def _needs_graph(states: torch.Tensor, head: Head) -> bool:
    if not torch.is_grad_enabled():
        return False
    if states.requires_grad:
        return True
    return isinstance(head, torch.nn.Module) and any(p.requires_grad for p in head.parameters())


def _head_width(states: torch.Tensor, head: Head) -> int:
    if head is None:
        return states.shape[-1]
    weight = getattr(head, "weight", None)
    if isinstance(weight, torch.Tensor) and weight.ndim == 2:
        return max(weight.shape)  # an output embedding maps hidden -> vocabulary; the vocabulary is the larger side
    return states.shape[-1] * 64


def _sampling_chunk(states: torch.Tensor, actions: torch.Tensor, mask: Optional[torch.Tensor], head: Head,
                    temperature: float, entropy_grad: bool, with_raw: bool = False,
                    raw_temperature: float = 1.0) -> tuple[torch.Tensor, ...]:
    logits = head(states) if head is not None else states
    # the unmasked log-prob at the KL's temperature (1 unless kl.temperature) from the same head product (a
    # KL term's), before the logits go
    raw = (_raw_of_logits(logits, actions, raw_temperature),) if with_raw else ()
    logp_all = sampling_log_probs(logits, mask, temperature)
    del logits
    logp = gather(logp_all, actions)
    if entropy_grad:
        return (logp, entropy(logp_all)) + raw
    with torch.no_grad():
        return (logp, entropy(logp_all)) + raw


def _raw_of_logits(logits: torch.Tensor, actions: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    logits = logits.float()
    logits = logits / temperature if temperature != 1.0 else logits  # no copy at T = 1: today's exact values
    return gather(logits, actions) - torch.logsumexp(logits, dim=-1)


def _raw_chunk(states: torch.Tensor, actions: torch.Tensor, head: Head) -> torch.Tensor:
    return _raw_of_logits(head(states) if head is not None else states, actions)


def _chunks(length: int, size: int):
    for start in range(0, length, size):
        yield slice(start, min(length, start + size))


def sampling_stats(states: torch.Tensor, actions: torch.Tensor, action_mask: Optional[torch.Tensor],
                   temperature: float, head: Head = None, entropy_grad: bool = True,
                   chunk: Optional[int] = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(log-prob of each action under the sampling distribution [B, T], that distribution's entropy [B, T]).

    `states` are the head's inputs at the states predicting each action [B, T, H] (or, with
    `head=None`, the logits themselves [B, T, V]); `action_mask` [B, T, V] the tokens the sampler
    allowed (None: all). With `entropy_grad=False` the entropy carries no gradient (it is only logged).
    """
    logp, ent = _chunked_stats(states, actions, action_mask, temperature, head, entropy_grad, False, chunk)
    return logp, ent


def sampling_and_raw_stats(states: torch.Tensor, actions: torch.Tensor, action_mask: Optional[torch.Tensor],
                           temperature: float, head: Head = None, entropy_grad: bool = True,
                           chunk: Optional[int] = None,
                           raw_temperature: float = 1.0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`sampling_stats`' two, and the unmasked log-prob of each action at `raw_temperature` [B, T] (what a
    KL term in the loss compares with the reference: 1, or kl.temperature's), all from one head product
    per chunk."""
    logp, ent, raw = _chunked_stats(states, actions, action_mask, temperature, head, entropy_grad, True, chunk,
                                    raw_temperature)
    return logp, ent, raw


def _chunked_stats(states: torch.Tensor, actions: torch.Tensor, action_mask: Optional[torch.Tensor],
                   temperature: float, head: Head, entropy_grad: bool, with_raw: bool,
                   chunk: Optional[int], raw_temperature: float = 1.0) -> list[torch.Tensor]:
    size = chunk or chunk_length(states.shape[0], _head_width(states, head))
    graph = _needs_graph(states, head)
    linear = graph and not entropy_grad and _plain_linear(head, states)  # an entropy bonus: the checkpoint
    columns: list[list[torch.Tensor]] = []
    for part in _chunks(actions.shape[1], size):
        mask = action_mask[:, part] if action_mask is not None else None
        args = (states[:, part], actions[:, part], mask, head, temperature, entropy_grad, with_raw, raw_temperature)
        if linear:
            outputs = _LinearHeadStats.apply(states[:, part], head.weight, head.bias, actions[:, part], mask,
                                             temperature, with_raw, raw_temperature)
            outputs = outputs if with_raw else outputs[:2]
        elif graph:
            outputs = checkpoint(_sampling_chunk, *args, use_reentrant=False)
        else:
            outputs = _sampling_chunk(*args)
        columns.append(list(outputs))
    return [torch.cat(parts, dim=1) for parts in zip(*columns)]


def _plain_linear(head: Head, states: torch.Tensor) -> bool:
    """Whether `head(states)` is exactly `F.linear(states, head.weight, head.bias)` run outside autocast: an
    `nn.Linear` whose forward and hooks are torch's own, on plain tensors of the states' floating type."""
    if type(head) is not torch.nn.Linear or head._forward_hooks or head._forward_pre_hooks:
        return False
    if torch.nn.modules.module._global_forward_hooks or torch.nn.modules.module._global_forward_pre_hooks:
        return False
    if torch.is_autocast_enabled(states.device.type):
        return False
    tensors = [states, head.weight] + ([head.bias] if head.bias is not None else [])
    return all(type(t) in (torch.Tensor, torch.nn.Parameter) and t.dtype == states.dtype for t in tensors)


class _LinearHeadStats(torch.autograd.Function):
    """One chunk's (sampling log-prob of each action, the sampling distribution's entropy, the raw log-prob at
    `raw_temperature`) from the head inputs through a linear head, as `_sampling_chunk` computes them (the same
    operations, so the same values), with a backward pass that makes the logits again and writes their
    gradient from the softmax in place (see the module's docstring). The entropy is only logged (no gradient);
    the raw output is empty unless `with_raw`."""

    @staticmethod
    def forward(ctx, states, weight, bias, actions, mask, temperature, with_raw, raw_temperature):
        logits = torch.nn.functional.linear(states, weight, bias)
        raw = _raw_of_logits(logits, actions, raw_temperature) if with_raw else logits.new_empty(0)
        logp_all = sampling_log_probs(logits, mask, temperature)
        del logits
        logp = gather(logp_all, actions)
        ent = entropy(logp_all)
        del logp_all
        ctx.temperature, ctx.raw_temperature = temperature, raw_temperature
        # the log-probs at the actions give each position's log-normaliser back in the backward pass
        ctx.save_for_backward(states, weight, bias, actions, mask, logp, raw if with_raw else None)
        ctx.mark_non_differentiable(*([ent] if with_raw else [ent, raw]))  # one call: a call replaces the last's set
        return logp, ent, raw

    @staticmethod
    def backward(ctx, grad_logp, _grad_ent, grad_raw):
        states, weight, bias, actions, mask, logp, raw = ctx.saved_tensors
        need_states, need_weight, need_bias = ctx.needs_input_grad[:3]
        g_raw = grad_raw if raw is not None else None
        if not (need_states or need_weight or need_bias) or (grad_logp is None and g_raw is None):
            return (None,) * 8
        with torch.no_grad():
            logits = torch.nn.functional.linear(states, weight, bias)
            grad = None  # d loss / d logits, float32 [rows, t, V]
            g_logp = grad_logp.float() if grad_logp is not None else None
            if g_raw is not None:
                if mask is None and ctx.raw_temperature == ctx.temperature:
                    # one distribution: a single softmax takes both terms' gradients
                    g_logp = g_raw.float() if g_logp is None else g_logp + g_raw.float()
                else:
                    grad = _softmax_grad(logits, actions, raw, ctx.raw_temperature, None, g_raw.float(),
                                         consume=g_logp is None)
            if g_logp is not None:
                part = _softmax_grad(logits, actions, logp, ctx.temperature, mask, g_logp, consume=True)
                grad = part if grad is None else grad.add_(part)
            del logits
            grad = grad.to(weight.dtype)
            grad_states = grad @ weight if need_states else None
            flat = grad.reshape(-1, grad.shape[-1])
            grad_weight = flat.t() @ states.reshape(-1, states.shape[-1]) if need_weight else None
            grad_bias = flat.sum(0) if (need_bias and bias is not None) else None
        return grad_states, grad_weight, grad_bias, None, None, None, None, None


def _softmax_grad(logits: torch.Tensor, actions: torch.Tensor, logp_action: torch.Tensor, temperature: float,
                  mask: Optional[torch.Tensor], g_logp: torch.Tensor, consume: bool = False) -> torch.Tensor:
    """d loss / d logits [rows, t, V] float32 for the distribution softmax(logits / T) restricted to `mask`, where
    the loss has gradient `g_logp` at the log-prob of each action (`logp_action`, that distribution's):
    g_logp (onehot - p) / T. With `consume`, `logits` may be overwritten (the caller's, not used again)."""
    z = logits.float()
    if temperature != 1.0:
        z = z / temperature
    elif not (consume and z is logits):
        z = z.clone()
    if mask is not None:
        z.masked_fill_(~mask, float("-inf"))
    # log p = z - lse, and lse = z at the action - log p at the action (the forward's log-prob); a position
    # where that is not finite (its action outside the mask: no gradient to give) takes logsumexp itself
    lse = gather(z, actions) - logp_action
    bad = ~torch.isfinite(lse)
    if bool(bad.any()):
        lse = torch.where(bad, torch.logsumexp(z, dim=-1), lse)
    grad = z.sub_(lse.unsqueeze(-1)).exp_().mul_(-g_logp.unsqueeze(-1))  # -g p, in place
    grad.scatter_add_(-1, actions.unsqueeze(-1), g_logp.unsqueeze(-1))  # + g at the action
    return grad.div_(temperature) if temperature != 1.0 else grad


def raw_log_probs(states: torch.Tensor, actions: torch.Tensor, head: Head = None,
                  chunk: Optional[int] = None) -> torch.Tensor:
    """log softmax(logits) at the taken actions [B, T]: the unmasked, temperature-1 distribution (KL)."""
    size = chunk or chunk_length(states.shape[0], _head_width(states, head))
    graph = _needs_graph(states, head)
    parts = []
    for part in _chunks(actions.shape[1], size):
        args = (states[:, part], actions[:, part], head)
        parts.append(checkpoint(_raw_chunk, *args, use_reentrant=False) if graph else _raw_chunk(*args))
    return torch.cat(parts, dim=1)
