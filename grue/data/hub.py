"""What every GRUE loader shares: reading a split's rows from hub parquet, and finishing the splits.

Rows come back as nested dicts in the hub's own schema (a struct is a dict, a list a list), holding only
the requested columns. Columns are dotted paths, so NarrativeQA can read `document.summary.text`
without loading the books in `document.text`. The mini generators emit rows in the same schema, so
one row-to-sample function per task serves the hub, a local copy of it, and the mini data.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Sequence

from grue.assets.resolve import parquet_split_files, resolve_dataset
from grue.data.sample import Sample
from grue.data.splits import cap, shuffled

Row = dict[str, Any]


def dataset_root(cfg: Any) -> Path:
    """The local directory of `data.source` (hub id, hub cache or local copy), only `data.config` of it."""
    return resolve_dataset(cfg.data.source, cfg.task, cfg.data.config, cfg.data.revision)


def _nest(row: Row, path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    for key in parents:
        row = row.setdefault(key, {})
    row[leaf] = value


def read_rows(root: Path, split: str, subset: str | None, columns: Sequence[str],
              optional: Sequence[str] = ()) -> list[Row]:
    """Every row of one split, as nested dicts holding `columns` (dotted paths into structs), and the
    top-level `optional` columns where a file has them (ToTTo's train split lacks `overlap_subset`)."""
    import pyarrow.parquet as pq

    rows: list[Row] = []
    for path in parquet_split_files(root, split, subset):
        present = set(pq.read_schema(path).names)
        wanted = [*columns, *(c for c in optional if c in present and c not in columns)]
        table = pq.read_table(path, columns=wanted)
        values = [table.column(i).to_pylist() for i in range(len(wanted))]  # by position: leaf names collide
        for record in zip(*values):
            row: Row = {}
            for column, value in zip(wanted, record):
                _nest(row, column, value)
            rows.append(row)
    return rows


def hub_split(cfg: Any, split: str, columns: Sequence[str], optional: Sequence[str] = ()) -> list[Row]:
    return read_rows(dataset_root(cfg), split, cfg.data.config, columns, optional)


def clean_references(texts: Sequence[Any]) -> tuple[str, ...]:
    """Non-blank references, stripped, duplicates dropped in order: a blank one would be scored as a target."""
    out = [str(t).strip() for t in texts if t is not None and str(t).strip()]
    return tuple(dict.fromkeys(out))


def held_out(items: list[Any], n: int, seed: int) -> tuple[list[Any], list[Any]]:
    """(rest, held) with `n` items held out by a seeded shuffle: a validation split carved from train."""
    order = shuffled(items, seed)
    return order[n:], order[:n]


def finish_splits(cfg: Any, splits: dict[str, list[Sample]]) -> dict[str, list[Sample]]:
    """Shuffle each split with the split seed (so a cap takes a fair sample), cap it, add the prompt suffix.

    Samples without a reference are refused here: every metric would score them against nothing.
    """
    limits = {"train": cfg.data.max_train, "val": cfg.data.max_val, "test": cfg.data.max_test}
    suffix = cfg.data.prompt_suffix
    out: dict[str, list[Sample]] = {}
    for name, samples in splits.items():
        empty = [s.id for s in samples if not s.references]
        if empty:
            raise ValueError(f"{cfg.task} {name} split: samples without references ({', '.join(empty[:3])} ...)")
        kept = cap(shuffled(samples, cfg.data.split_seed), limits[name])
        out[name] = [dataclasses.replace(s, prompt=s.prompt + suffix) for s in kept] if suffix else kept
    return out
