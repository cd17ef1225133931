"""DailyDialog next-utterance generation (grue_spec.md 2.7): hub parquet, a local copy, or mini dialogues.

Hub schema (li2017dailydialog/daily_dialog, served as parquet from `refs/convert/parquet`): one dialogue
per row with `dialog` (utterances), `act` (dialogue acts 1-4: inform, question, directive, commissive;
0 is unused) and `emotion`. Every utterance with at least CONTEXT_SIZE previous ones is a sample (35k /
3k / 3k, section B.9): the prompt is the last five utterances joined with `<EOU>` and ended with
" <EOU>", as the reference code builds it; the reference is the utterance. meta carries the gold act as
the intent classifier's label index (act - 1), the emotion, and the last context utterance, which the
intent classifier reads with the generation.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from grue.assets.resolve import is_packaged
from grue.data.hub import Row, clean_references, finish_splits, hub_split
from grue.data.sample import Sample

CONTEXT_SIZE = 5               # section B.9: context window 5
UTTERANCE_SEPARATOR = "<EOU>"  # section B.9; the reference code also ends the context with " <EOU>"
COLUMNS = ("dialog", "act", "emotion")
SPLITS = {"train": "train", "val": "validation", "test": "test"}
MINI_SOURCE = "packaged:chatterbot-dialogues"


def dialogue_context(utterances: Sequence[str]) -> str:
    return UTTERANCE_SEPARATOR.join(utterances[-CONTEXT_SIZE:]) + " " + UTTERANCE_SEPARATOR


def turn_samples(rows: Iterable[Row], split: str, min_context: int = CONTEXT_SIZE) -> list[Sample]:
    """One sample per utterance that has `min_context` previous ones (the paper: all five)."""
    samples = []
    for d, row in enumerate(rows):
        dialog = [str(u) for u in row["dialog"] or []]
        acts = list(row.get("act") or [])
        emotions = list(row.get("emotion") or [])
        for t in range(min_context, len(dialog)):
            refs = clean_references([dialog[t]])
            if not refs:
                continue
            meta: dict[str, Any] = {"context": dialog[t - 1].strip()}
            if t < len(acts) and acts[t]:
                meta["intent"] = int(acts[t]) - 1  # the classifier's label index (reference code: act - 1)
            if t < len(emotions):
                meta["emotion"] = int(emotions[t])
            samples.append(Sample(id=f"{split}-{d}-{t}", prompt=dialogue_context(dialog[:t]), references=refs,
                                  meta=meta))
    return samples


def merge_same_prompts(samples: list[Sample]) -> list[Sample]:
    """Samples with the same context become one, with every reply as a reference (first one's meta)."""
    merged: dict[str, Sample] = {}
    for s in samples:
        first = merged.get(s.prompt)
        merged[s.prompt] = s if first is None else Sample(first.id, first.prompt,
                                                          clean_references(first.references + s.references),
                                                          first.meta)
    return list(merged.values())


def load_dailydialog_splits(cfg: Any) -> dict[str, list[Sample]]:
    if is_packaged(cfg.data.source):
        if cfg.data.source != MINI_SOURCE:
            raise ValueError(f"unknown packaged dialogue source {cfg.data.source!r}; use {MINI_SOURCE}")
        from grue.data.mini_dialogues import MIN_CONTEXT, dialogue_rows

        parts = dialogue_rows(cfg.data.split_seed)
        # The corpus answers one question many ways: those answers are all references of one sample.
        return finish_splits(cfg, {name: merge_same_prompts(turn_samples(rows, name, MIN_CONTEXT))
                                   for name, rows in parts.items()})
    return finish_splits(cfg, {name: turn_samples(hub_split(cfg, hub_name, COLUMNS), name)
                               for name, hub_name in SPLITS.items()})
