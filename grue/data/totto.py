"""ToTTo controlled table-to-text (grue_spec.md 2.4): hub parquet, a local copy, or the mini generated tables.

Hub schema (google-research-datasets/totto, parquet from `refs/convert/parquet`): per example
`table_page_title`, `table_section_title`, `table` (rows of cells with value / is_header / row_span /
column_span), `highlighted_cells` ([row, column] pairs), `sentence_annotations` (per annotator:
`final_sentence` and earlier drafts; a struct of lists in the hub's parquet, a list of structs in the
original JSONL, both read) and, outside train, `overlap_subset`. The prompt is grue.data.totto_table's
linearised highlighted subtable; every annotator's final sentence is a reference; meta holds the PARENT
tables and the overlap subset (Tables 23-24 report Overall / Overlap / Non-Overlap).
The hub's test annotations are hidden (empty), so "test" is the validation split and results.json says so
(TaskSpec.test_references_hidden); "val" is a seeded hold-out of train the size of validation.
"""
from __future__ import annotations

from typing import Any, Iterable

from grue.assets.resolve import is_packaged
from grue.data.hub import Row, clean_references, finish_splits, held_out, hub_split
from grue.data.sample import Sample
from grue.data.totto_table import highlighted_subtable, parent_tables, subtable_prompt

COLUMNS = ("example_id", "table_page_title", "table_section_title", "table", "highlighted_cells",
           "sentence_annotations")
OPTIONAL_COLUMNS = ("overlap_subset",)
MINI_SOURCE = "packaged:synthetic-tables"


def final_sentences(annotations: Any) -> list[str]:
    if isinstance(annotations, dict):  # struct of lists (hub parquet)
        return list(annotations.get("final_sentence") or [])
    return [a.get("final_sentence") for a in annotations or [] if isinstance(a, dict)]  # list of structs


def table_samples(rows: Iterable[Row], split: str) -> list[Sample]:
    samples = []
    for i, row in enumerate(rows):
        refs = clean_references(final_sentences(row.get("sentence_annotations")))
        cells = highlighted_subtable(row["table"] or [], row["highlighted_cells"] or [])
        if not refs or not cells:  # hidden annotations or nothing highlighted: nothing to score against
            continue
        title, section = (" ".join(str(row.get(k) or "").split()) for k in ("table_page_title", "table_section_title"))
        table, recall_table = parent_tables(cells, title, section)
        meta = {"table": table, "recall_table": recall_table, "overlap_subset": row.get("overlap_subset")}
        samples.append(Sample(id=str(row.get("example_id") or f"{split}-{i}"),
                              prompt=subtable_prompt(cells, title, section), references=refs, meta=meta))
    return samples


def load_totto_splits(cfg: Any) -> dict[str, list[Sample]]:
    if is_packaged(cfg.data.source):
        if cfg.data.source != MINI_SOURCE:
            raise ValueError(f"unknown packaged ToTTo source {cfg.data.source!r}; use {MINI_SOURCE}")
        from grue.data.mini_tables import table_rows

        parts = table_rows(cfg.data.split_seed)
        return finish_splits(cfg, {name: table_samples(rows, name) for name, rows in parts.items()})
    train = table_samples(hub_split(cfg, "train", COLUMNS, OPTIONAL_COLUMNS), "train")
    validation = table_samples(hub_split(cfg, "validation", COLUMNS, OPTIONAL_COLUMNS), "validation")
    train, val = held_out(train, len(validation), cfg.data.split_seed)
    return finish_splits(cfg, {"train": train, "val": val, "test": validation})
