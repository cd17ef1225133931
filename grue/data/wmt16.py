"""English-to-German translation (grue_spec.md 2.6): WMT16 de-en or IWSLT2017 en-de from the hub, a local
copy, or the mini generated sentence pairs.

Both hub datasets hold one `translation` struct per row with `en` and `de` fields, so one loader reads
either; which one is `data.source` / `data.config` / `data.revision`:
- WMT16 (paper Table 1, the default): `wmt/wmt16`, subset `de-en`; train (Europarl, news commentary,
  Common Crawl), validation newstest2015, test newstest2016.
- IWSLT2017 (the reference code's configs; paper Tables 30-31): `IWSLT/iwslt2017`, subset
  `iwslt2017-en-de`, revision `refs/convert/parquet` (its main branch is a loading script).
The prompt is T5's own task prefix + the English sentence; the reference is the German one.
"""
from __future__ import annotations

from typing import Any, Iterable

from grue.assets.resolve import is_packaged
from grue.data.hub import Row, clean_references, finish_splits, hub_split
from grue.data.sample import Sample

PROMPT_PREFIX = "translate English to German: "  # paper section B.8.3 prompts
SOURCE_LANG, TARGET_LANG = "en", "de"
COLUMNS = ("translation",)
SPLITS = {"train": "train", "val": "validation", "test": "test"}
MINI_SOURCE = "packaged:synthetic-en-de"
IWSLT2017 = {"data.source": "IWSLT/iwslt2017", "data.config": "iwslt2017-en-de",
             "data.revision": "refs/convert/parquet"}


def translation_samples(rows: Iterable[Row], split: str) -> list[Sample]:
    samples = []
    for i, row in enumerate(rows):
        pair = row["translation"] or {}
        source = str(pair.get(SOURCE_LANG) or "").strip()
        refs = clean_references([pair.get(TARGET_LANG)])
        if source and refs:  # a pair missing either side cannot be translated or scored
            samples.append(Sample(id=f"{split}-{i}", prompt=PROMPT_PREFIX + source, references=refs,
                                  meta={"source": source}))
    return samples


def load_wmt16_splits(cfg: Any) -> dict[str, list[Sample]]:
    if is_packaged(cfg.data.source):
        if cfg.data.source != MINI_SOURCE:
            raise ValueError(f"unknown packaged translation source {cfg.data.source!r}; use {MINI_SOURCE}")
        from grue.data.mini_translation import translation_rows

        parts = translation_rows(cfg.data.split_seed)
        return finish_splits(cfg, {name: translation_samples(rows, name) for name, rows in parts.items()})
    return finish_splits(cfg, {name: translation_samples(hub_split(cfg, hub_name, COLUMNS), name)
                               for name, hub_name in SPLITS.items()})
