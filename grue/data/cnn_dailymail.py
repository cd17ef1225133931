"""CNN/DailyMail summarisation (grue_spec.md 2.3): hub parquet, a local copy, or the mini generated news.

Hub schema (abisee/cnn_dailymail, subset 3.0.0): `article`, `highlights`, `id` per row, splits train /
validation / test. The prompt is `Summarize: ` + article (reference code; the policy tokenizer then
right-truncates it to 512 tokens, Table 16), the reference is the highlights (their line breaks kept:
ROUGE-Lsum splits on them), and meta["document"] is the article for SummaC-ZS.
"""
from __future__ import annotations

from typing import Any, Iterable

from grue.assets.resolve import is_packaged
from grue.data.hub import Row, clean_references, finish_splits, hub_split
from grue.data.sample import Sample

PROMPT_PREFIX = "Summarize: "  # reference code's prefix (the paper prints no prompt)
COLUMNS = ("id", "article", "highlights")
SPLITS = {"train": "train", "val": "validation", "test": "test"}
MINI_SOURCE = "packaged:synthetic-news"


def article_samples(rows: Iterable[Row], split: str) -> list[Sample]:
    samples = []
    for i, row in enumerate(rows):
        article = str(row["article"]).strip()
        refs = clean_references([row["highlights"]])
        if article and refs:
            samples.append(Sample(id=str(row.get("id") or f"{split}-{i}"), prompt=PROMPT_PREFIX + article,
                                  references=refs, meta={"document": article}))
    return samples


def load_cnn_dailymail_splits(cfg: Any) -> dict[str, list[Sample]]:
    if is_packaged(cfg.data.source):
        if cfg.data.source != MINI_SOURCE:
            raise ValueError(f"unknown packaged CNN/DailyMail source {cfg.data.source!r}; use {MINI_SOURCE}")
        from grue.data.mini_news import news_rows

        parts = news_rows(cfg.data.split_seed)
        return finish_splits(cfg, {name: article_samples(rows, name) for name, rows in parts.items()})
    return finish_splits(cfg, {name: article_samples(hub_split(cfg, hub_name, COLUMNS), name)
                               for name, hub_name in SPLITS.items()})
