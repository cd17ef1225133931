"""NarrativeQA (grue_spec.md 2.5): question + story summary in UnifiedQA's format, from the hub parquet, a
local copy, or the mini generated stories.

Hub schema (deepmind/narrativeqa): `document` (a struct with the story's `id`, the whole book in `text`,
and `summary.text`), `question.text`, `answers` (a list of structs with `text`), one row per question.
Only the summary, question and answers are read; the books are never loaded. The prompt is UnifiedQA's
"<question> \\n <summary>" (a literal backslash-n between them; whitespace in the summary collapsed, as
in UnifiedQA's TSV export), lower-cased; both answers, lower-cased, are the references.
"""
from __future__ import annotations

from typing import Any, Iterable

from grue.assets.resolve import is_packaged
from grue.data.hub import Row, clean_references, finish_splits, hub_split
from grue.data.sample import Sample

PROMPT_SEPARATOR = " \\n "  # UnifiedQA: "<question> \n <context>" with a literal backslash-n (section B.7.3)
LOWERCASE = True            # UnifiedQA's NarrativeQA TSVs are lower-cased (reference code)
COLUMNS = ("document.id", "document.summary.text", "question.text", "answers")
SPLITS = {"train": "train", "val": "validation", "test": "test"}
MINI_SOURCE = "packaged:synthetic-stories"


def unifiedqa_prompt(question: str, context: str) -> str:
    text = " ".join(question.split()) + PROMPT_SEPARATOR + " ".join(context.split())
    return text.lower() if LOWERCASE else text


def question_samples(rows: Iterable[Row], split: str) -> list[Sample]:
    samples = []
    for i, row in enumerate(rows):
        document = row.get("document") or {}
        summary = str((document.get("summary") or {}).get("text") or "")
        question = str((row.get("question") or {}).get("text") or "")
        answers = [a.get("text") if isinstance(a, dict) else a for a in row.get("answers") or []]
        refs = clean_references([str(a).lower() if LOWERCASE and a else a for a in answers])
        if summary.strip() and question.strip() and refs:
            samples.append(Sample(id=f"{split}-{i}", prompt=unifiedqa_prompt(question, summary), references=refs,
                                  meta={"document_id": str(document.get("id") or ""), "question": question}))
    return samples


def load_narrativeqa_splits(cfg: Any) -> dict[str, list[Sample]]:
    if is_packaged(cfg.data.source):
        if cfg.data.source != MINI_SOURCE:
            raise ValueError(f"unknown packaged NarrativeQA source {cfg.data.source!r}; use {MINI_SOURCE}")
        from grue.data.mini_stories import story_rows

        parts = story_rows(cfg.data.split_seed)
        return finish_splits(cfg, {name: question_samples(rows, name) for name, rows in parts.items()})
    return finish_splits(cfg, {name: question_samples(hub_split(cfg, hub_name, COLUMNS), name)
                               for name, hub_name in SPLITS.items()})
