"""Choosing each step's token in one pass over the vocabulary, with noise keyed per episode.

Keys. Every episode has a 63-bit key, a hash of who asks (a run's seed and iteration, or an evaluation's
seed), the sample's id and how many times that id came before it in the same call (a GRPO group's copies
are 0..G-1). The key seeds the row's own generator, which draws one uniform per step; step t samples
by inverse CDF with the row's t-th uniform. Nothing depends on which rows share a batch, how the rows
are bucketed, or which process holds them.

The distribution. Raw logits -> the min-length rule (EOS off while fewer than `min_new_tokens` tokens are
out) -> the processors (NLPO's mask) -> temperature -> top-k -> top-p, as generate() orders them. Top-k
takes the k largest and works on those k alone from there (temperature, top-p, the draw, the log-prob);
in a row whose k-th and (k+1)-th values tie, or with fewer than k finite, the whole vocabulary is used for
that row's step instead, with every value >= the k-th kept (generate()'s rule); the choice is per row, so
no row's draw depends on another's values. The records are read off the
distribution the token was drawn from: its log-prob there, the raw log-prob (the KL penalty's), and the
set it allowed ([B, V] bool, None when that is the whole vocabulary), which the PPO update turns back
into the same distribution (grue.policy.masking.sampling_log_probs).
"""
from __future__ import annotations

import hashlib
from typing import Any, Hashable, Optional, Sequence

import torch

NEG_INF = float("-inf")


def episode_keys(namespace: Hashable, ids: Sequence[Hashable]) -> list[int]:
    """One key per entry of `ids`: a hash of (namespace, id, occurrence of that id so far in `ids`)."""
    seen: dict[Hashable, int] = {}
    keys = []
    for item in ids:
        n = seen.get(item, 0)
        seen[item] = n + 1
        digest = hashlib.blake2b(repr((namespace, item, n)).encode(), digest_size=8).digest()
        keys.append(int.from_bytes(digest, "little") >> 1)
    return keys


def keys_from_global_rng(rows: int) -> list[int]:
    """Keys for callers that give none: rows of one call, under one draw of torch's global generator (so a
    caller that seeds torch, e.g. reward-model query sampling, stays reproducible)."""
    base = int(torch.randint(0, 2 ** 62, (1,)))
    return episode_keys(("global", base), range(rows))


def row_uniforms(keys: Sequence[int], steps: int) -> torch.Tensor:
    """[len(keys), steps] float64 uniforms in [0, 1): row i's stream from its own generator."""
    out = torch.empty(len(keys), steps, dtype=torch.float64)
    for i, key in enumerate(keys):
        out[i] = torch.rand(steps, generator=torch.Generator().manual_seed(int(key)), dtype=torch.float64)
    return out


def inverse_cdf(weights: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Index drawn from each row's unnormalised non-negative `weights` [b, n] with uniforms `u` [b]: the first
    index whose cumulative weight exceeds u times the total (never one of zero weight)."""
    cdf = weights.cumsum(-1)
    total = cdf[:, -1:]
    target = (u.to(cdf.dtype).unsqueeze(-1) * total)
    index = torch.searchsorted(cdf, target, right=True)
    last = (cdf < total).sum(-1, keepdim=True)  # the last index of positive weight
    return torch.minimum(index, last).squeeze(-1)


class FusedSampler:
    """The token of one step for every row, with its records (see the module's docstring)."""

    def __init__(self, gen: Any, eos_id: Optional[int]) -> None:
        self.do_sample = bool(gen.do_sample)
        self.temperature = float(gen.temperature) if self.do_sample and gen.temperature else 1.0
        self.top_k = int(gen.top_k or 0) if self.do_sample else 0
        self.top_p = float(gen.top_p) if self.do_sample and gen.top_p is not None else 1.0
        self.min_new_tokens = int(gen.min_new_tokens or 0)
        self.eos_id = eos_id

    def __call__(self, logits: torch.Tensor, t: int, u: Optional[torch.Tensor], processors: Sequence[Any],
                 input_ids: Optional[torch.Tensor], record: bool):
        """(tokens [b], sampled log-probs [b], raw log-probs [b], allowed [b, V] or None); the last three
        are None unless `record`."""
        raw = logits.float()
        raw_lse = torch.logsumexp(raw, dim=-1) if record else None
        scores = raw
        if t < self.min_new_tokens and self.eos_id is not None:
            scores = scores.index_fill(-1, torch.tensor([self.eos_id], device=scores.device), NEG_INF)
        for processor in processors:
            scores = processor(input_ids, scores)
        if not self.do_sample:
            tokens = scores.argmax(-1)
            logp, allowed = (self._full_records(scores, tokens) if record else (None, None))
        else:
            tokens, logp, allowed = self._sample(scores, u, record)
        if not record:
            return tokens, None, None, None
        raw_logp = raw.gather(-1, tokens.unsqueeze(-1)).squeeze(-1) - raw_lse
        return tokens, logp, raw_logp, allowed

    def _sample(self, scores: torch.Tensor, u: torch.Tensor, record: bool):
        """Each row by the k-largest path where its k-th and (k+1)-th values differ, else by the whole vocabulary.
        Chosen per row: one row's tie (a finished row fed padding, which NLPO's mask then kept in the batch) once sent
        every row of the batch down the whole-vocabulary path, whose draw walks the vocabulary in id order, not
        by value, so the same uniform picked another token and NLPO with a mask that removed nothing sampled
        unlike PPO."""
        k, vocab = self.top_k, scores.shape[-1]
        if not 0 < k < vocab:
            return self._sample_full(scores, u, record)
        values, index = scores.topk(k + 1, dim=-1)
        fast = values[:, k - 1] > values[:, k]
        if bool(fast.all()):
            return self._sample_top_k(values[:, :k], index[:, :k], u, record, vocab)
        if not bool(fast.any()):
            return self._sample_full(scores, u, record)
        rows, rest = fast.nonzero().squeeze(-1), (~fast).nonzero().squeeze(-1)
        quick = self._sample_top_k(values[rows, :k], index[rows, :k], u[rows], record, vocab)
        whole = self._sample_full(scores[rest], u[rest], record)
        tokens = torch.empty(scores.shape[0], dtype=torch.long, device=scores.device)
        tokens[rows], tokens[rest] = quick[0], whole[0]
        if not record:
            return tokens, None, None
        logp = torch.empty(scores.shape[0], dtype=quick[1].dtype, device=scores.device)
        logp[rows], logp[rest] = quick[1], whole[1]
        allowed = torch.ones(scores.shape[0], vocab, dtype=torch.bool, device=scores.device)
        allowed[rows] = quick[2]
        if whole[2] is not None:
            allowed[rest] = whole[2]
        return tokens, logp, allowed

    # -- the k largest only ------------------------------------------------------------------------------
    def _sample_top_k(self, values: torch.Tensor, index: torch.Tensor, u: torch.Tensor, record: bool, vocab: int):
        scaled = values / self.temperature if self.temperature != 1.0 else values  # sorted, largest first
        keep = None
        if self.top_p < 1.0:
            keep = self._top_p_keep(scaled)
            scaled = scaled.masked_fill(~keep, NEG_INF)
        lse = torch.logsumexp(scaled, dim=-1, keepdim=True)
        position = inverse_cdf((scaled - lse).exp(), u)
        tokens = index.gather(-1, position.unsqueeze(-1)).squeeze(-1)
        if not record:
            return tokens, None, None
        logp = (scaled.gather(-1, position.unsqueeze(-1)) - lse).squeeze(-1)
        allowed = torch.zeros(values.shape[0], vocab, dtype=torch.bool, device=values.device)
        allowed.scatter_(-1, index, keep if keep is not None else torch.ones_like(index, dtype=torch.bool))
        return tokens, logp, allowed

    def _top_p_keep(self, descending: torch.Tensor) -> torch.Tensor:
        """generate()'s top-p on values sorted largest first: drop the smallest tokens while their total
        probability stays <= 1 - top_p; the largest is always kept."""
        probs = torch.softmax(descending, dim=-1)
        tail = probs.flip(-1).cumsum(-1).flip(-1)  # probability of this token and every smaller one
        keep = tail > 1 - self.top_p
        keep[:, 0] = True
        return keep

    # -- the whole vocabulary ----------------------------------------------------------------------------
    def _sample_full(self, scores: torch.Tensor, u: torch.Tensor, record: bool):
        scaled = scores / self.temperature if self.temperature != 1.0 else scores
        if 0 < self.top_k < scaled.shape[-1]:
            kth = scaled.topk(self.top_k, dim=-1).values[:, -1:]
            scaled = scaled.masked_fill(scaled < kth, NEG_INF)
        if self.top_p < 1.0:
            ordered, order = scaled.sort(dim=-1, descending=True)
            keep = self._top_p_keep(ordered)
            scaled = scaled.masked_fill(~torch.zeros_like(keep).scatter(-1, order, keep), NEG_INF)
        lse = torch.logsumexp(scaled, dim=-1, keepdim=True)
        tokens = inverse_cdf((scaled - lse).exp(), u)
        if not record:
            return tokens, None, None
        logp = (scaled.gather(-1, tokens.unsqueeze(-1)) - lse).squeeze(-1)
        finite = torch.isfinite(scaled)
        return tokens, logp, None if bool(finite.all()) else finite

    def _full_records(self, scores: torch.Tensor, tokens: torch.Tensor):
        lse = torch.logsumexp(scores, dim=-1)
        logp = scores.gather(-1, tokens.unsqueeze(-1)).squeeze(-1) - lse
        finite = torch.isfinite(scores)
        return logp, None if bool(finite.all()) else finite
