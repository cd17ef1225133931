"""How many prompts `model.max_prompt_length` cuts, per split: said when a run starts and recorded in its
results.json (`prompt_truncation`, docs/results_schema.md).

A prompt longer than the limit loses its first tokens (`model.truncation_side=left`, the causal default) or
its last ones, silently: issue 47's task inherited IMDB's 24-token limit and lost part of 10-17 % of its
prompts. The count tokenizes each prompt as the policy encodes it (a causal policy adds no special tokens,
a seq2seq one adds its tokenizer's; grue/policy/causal.py and seq2seq.py), without truncation, and compares
the length with the limit.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence


def prompt_lengths(tokenizer: Any, prompts: Sequence[str], special_tokens: bool) -> list[int]:
    """Token counts of `prompts` as the policy encodes them, before truncation."""
    if not prompts:
        return []
    encoded = tokenizer(list(prompts), add_special_tokens=special_tokens, truncation=False)["input_ids"]
    return [len(ids) for ids in encoded]


def truncation_counts(tokenizer: Any, splits: Mapping[str, Sequence[Any]], limit: int,
                      special_tokens: bool) -> dict[str, dict[str, int]]:
    """{split: {"prompts": n, "truncated": how many exceed `limit`, "longest": the longest in tokens}}."""
    out = {}
    for split, samples in splits.items():
        lengths = prompt_lengths(tokenizer, [s.prompt for s in samples], special_tokens)
        out[split] = {"prompts": len(lengths), "truncated": sum(n > limit for n in lengths),
                      "longest": max(lengths, default=0)}
    return out


def truncation_record(cfg: Any, counts: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """results.json's `prompt_truncation`: the limit, the side cut, and the counts per split."""
    return {"max_prompt_length": int(cfg.model.max_prompt_length), "side": str(cfg.model.truncation_side),
            "splits": {split: dict(c) for split, c in counts.items()}}


def truncation_line(cfg: Any, counts: Mapping[str, Mapping[str, int]]) -> str:
    """One line for the start of a run: what the limit cuts, per split (or that it cuts nothing)."""
    limit, side = cfg.model.max_prompt_length, cfg.model.truncation_side
    cut = {s: c for s, c in counts.items() if c["truncated"]}
    if not cut:
        return f"prompts: none longer than model.max_prompt_length={limit}"
    parts = ", ".join(f"{s} {c['truncated']}/{c['prompts']} ({c['truncated'] / c['prompts']:.0%}, longest "
                      f"{c['longest']})" for s, c in cut.items())
    return (f"prompts cut to model.max_prompt_length={limit} tokens (from the {side}): {parts}; "
            "a longer limit keeps them whole")


def count_for_run(cfg: Any, tokenizer: Any, splits: Mapping[str, Sequence[Any]]) -> dict[str, dict[str, int]]:
    return truncation_counts(tokenizer, splits, int(cfg.model.max_prompt_length),
                             special_tokens=cfg.model.kind == "seq2seq")
