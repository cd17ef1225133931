"""Perplexity of the human reference texts under the policy being evaluated.

This is the paper's naturalness metric for IMDB: it measures how far the policy has drifted from
human text (a policy that reward-hacks into "worth watching!" assigns the real reviews a low
probability), not how fluent its own generations are.

Causal LMs follow the Hugging Face sliding-window recipe that RL4LMs used: all references are
joined with "\\n\\n" into one token stream, read in windows of ``max_length`` tokens that advance by
``stride``; each token is scored once, by the first window whose new part contains it, with up to
``max_length - stride`` tokens of context (the stride is capped at ``max_length - 1`` so every
window gives at least one). Two differences from the reference code, both fixes:
- the corpus value is exp(total NLL / number of scored tokens), counted token by token; the recipe's
  ``exp(sum(mean_nll * trg_len) / end_loc)`` over-counts by one token per window;
- windows are scored in batches of equal width (so there is no padding to mis-count), and the model
  is asked only for the logits of the positions it scores (``logits_to_keep``) where it supports that.
The first token of the stream has no context and is not scored (as in the recipe, no BOS is added).

Seq2seq LMs have no stream to slide over: the perplexity is that of each reference given its prompt
as encoder input (teacher forcing, the tokenizer's target special tokens included), pooled over all
reference tokens of the corpus. Both inputs are truncated to ``max_length`` tokens.

Options (``ctx.options``): ``perplexity_stride`` (512), ``perplexity_max_length`` (1024; the window is
also capped by the model's position limit), ``perplexity_batch_size`` (4).
"""
from __future__ import annotations

import inspect
import math
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import torch
import torch.nn.functional as F

from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue
from grue.metrics.registry import register
from grue.policy.stack_config import position_limit, stack_configs

_SEPARATOR = "\n\n"


@contextmanager
def _frozen(model: torch.nn.Module) -> Iterator[None]:
    """Eval mode and no grad for the scoring pass, then the model's own mode back (mid-training eval)."""
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            yield
    finally:
        model.train(was_training)


def model_max_positions(model: Any) -> int | None:
    """The model's absolute position limit, or None for relative-position models such as T5. Two joined
    stacks (EncoderDecoderModel) each have their own; both read the same tokenized text, so the smaller."""
    limits = [limit for config in stack_configs(model.config) if (limit := position_limit(config))]
    return min(limits) if limits else None


def sliding_windows(n_tokens: int, max_length: int, stride: int) -> list[tuple[int, int, int]]:
    """(begin, end, first_scored) for each window: the window reads [begin, end) and scores
    positions [first_scored, end). Together the windows score every position from 1 to n-1 once,
    each with at least one token of context, which needs ``stride < max_length``."""
    if not 0 < stride < max_length:
        raise ValueError(f"stride {stride} must be between 1 and max_length - 1 ({max_length - 1})")
    windows: list[tuple[int, int, int]] = []
    prev_end = 0
    for begin in range(0, n_tokens, stride):
        end = min(begin + max_length, n_tokens)
        windows.append((begin, end, max(prev_end, 1)))
        prev_end = end
        if end == n_tokens:
            break
    return [w for w in windows if w[2] < w[1]]


def _token_nll(logits: torch.Tensor, labels: torch.Tensor) -> tuple[float, int]:
    """Summed next-token NLL where labels are not -100, and how many tokens that is."""
    logits = logits[:, :-1].float()
    labels = labels[:, 1:]
    nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                          ignore_index=-100, reduction="sum")
    return float(nll), int((labels != -100).sum())


class PerplexityScorer:
    """Reference perplexity under ``policy.model``; corpus value only (it is a corpus statistic)."""

    names = ("perplexity",)
    higher_is_better = {"perplexity": False}

    def __init__(self, policy: Any, stride: int, max_length: int, batch_size: int) -> None:
        self.model = policy.model
        self.tokenizer = policy.tokenizer
        self.is_seq2seq = bool(policy.is_seq2seq)
        self.device = policy.device
        limit = model_max_positions(self.model)
        self.max_length = max(2, min(max_length, limit) if limit else max_length)
        self.stride = max(1, min(stride, self.max_length - 1))
        self.batch_size = max(1, batch_size)
        self._can_keep_logits = "logits_to_keep" in inspect.signature(self.model.forward).parameters

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        with _frozen(self.model):
            if self.is_seq2seq:
                nll, count = self._seq2seq_nll(inputs.prompts, inputs.references)
            else:
                nll, count = self._causal_nll([r for refs in inputs.references for r in refs])
        if count == 0:
            raise ValueError("perplexity needs non-empty reference texts; none were given")
        return {"perplexity": MetricValue(corpus=math.exp(nll / count))}

    def _equal_width_batches(self, windows: list[tuple[int, int, int]]) -> Iterator[list[tuple[int, int, int]]]:
        """Consecutive windows of the same width (all but the last are full), at most batch_size each:
        no padding is needed, and the scored tails of a batch line up at its right edge."""
        batch: list[tuple[int, int, int]] = []
        for window in windows:
            if batch and (len(batch) == self.batch_size or window[1] - window[0] != batch[0][1] - batch[0][0]):
                yield batch
                batch = []
            batch.append(window)
        if batch:
            yield batch

    def _causal_nll(self, references: Sequence[str]) -> tuple[float, int]:
        text = _SEPARATOR.join(r for r in references if r)
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        total, count = 0.0, 0
        for batch in self._equal_width_batches(sliding_windows(len(ids), self.max_length, self.stride)):
            input_ids = torch.tensor([ids[begin:end] for begin, end, _ in batch], dtype=torch.long)
            labels = torch.full_like(input_ids, -100)
            for row, (begin, end, first) in enumerate(batch):
                labels[row, first - begin :] = input_ids[row, first - begin :]
            # Logits are needed only from the position before the first scored token: with a stride of
            # half the window this halves the vocabulary projection and the memory for logits.
            keep = max(end - first for _, end, first in batch) + 1
            extra = {"logits_to_keep": keep} if self._can_keep_logits else {}
            logits = self.model(input_ids=input_ids.to(self.device), **extra).logits
            nll, n = _token_nll(logits, labels[:, -logits.size(1) :].to(self.device))
            total, count = total + nll, count + n
        return total, count

    def _seq2seq_nll(self, prompts: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[float, int]:
        pairs = [(p, r) for p, refs in zip(prompts, references) for r in refs if r]
        total, count = 0.0, 0
        for start in range(0, len(pairs), self.batch_size):
            batch = pairs[start : start + self.batch_size]
            enc = self.tokenizer([p for p, _ in batch], text_target=[r for _, r in batch], padding=True,
                                 truncation=True, max_length=self.max_length, return_tensors="pt")
            labels = enc["labels"].masked_fill(enc["labels"] == self.tokenizer.pad_token_id, -100)
            logits = self.model(input_ids=enc["input_ids"].to(self.device),
                                attention_mask=enc["attention_mask"].to(self.device),
                                labels=labels.to(self.device)).logits.float()
            labels = labels.to(self.device)
            total += float(F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                                           ignore_index=-100, reduction="sum"))
            count += int((labels != -100).sum())
        return total, count


@register(higher_is_better=PerplexityScorer.higher_is_better,
          not_rewards={"perplexity": "it is that of the references under the model being trained"})
def build_perplexity(ctx: MetricContext) -> PerplexityScorer:
    """Needs the policy under evaluation; generations scored without a model cannot have it."""
    if ctx.policy is None:
        raise MetricUnavailable(
            "perplexity is that of the references under the evaluated model, and no model was given; "
            "evaluate a checkpoint (grue eval) or pass the model that made the generations")
    return PerplexityScorer(
        ctx.policy,
        stride=int(ctx.options.get("perplexity_stride", 512)),
        max_length=int(ctx.options.get("perplexity_max_length", 1024)),
        batch_size=int(ctx.options.get("perplexity_batch_size", 4)),
    )
