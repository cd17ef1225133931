"""Small datasets written in the hub's own parquet layouts and schemas, one writer per task.

Each writer puts the rows where the hub puts them (`<subset>/<split>-00000-of-00001.parquet`, or
`<subset>/<split>/0000.parquet` for the hub's parquet conversion of script datasets) with the hub's
column types, so the loaders read them with the same code that reads a real download.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd


def write(root: Path, relative: str, rows: list[dict[str, Any]]) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(path)


def commongen(root: Path) -> dict[str, list[dict]]:
    """allenai/common_gen: data/<split>-00000-of-00001.parquet, one row per (concept set, target)."""
    train = []
    for idx in range(10):
        concepts = [f"dog{idx}", "frisbee", "catch"]
        train += [{"concept_set_idx": idx, "concepts": concepts, "target": f"A dog{idx} catches a frisbee ({t})."}
                  for t in range(1 + idx % 3)]
    validation = [
        {"concept_set_idx": 100, "concepts": ["apron", "cut", "hat", "kitchen", "sausage"], "target": "A cook cuts."},
        {"concept_set_idx": 100, "concepts": ["apron", "cut", "hat", "kitchen", "sausage"], "target": "In a hat."},
        {"concept_set_idx": 100, "concepts": ["apron", "cut", "hat", "kitchen", "sausage"], "target": "  "},
        {"concept_set_idx": 101, "concepts": ["ski", "mountain", "skier"], "target": "A skier skis down a mountain."},
    ]
    test = [{"concept_set_idx": 200, "concepts": ["field", "look", "stand"], "target": ""},
            {"concept_set_idx": 201, "concepts": ["run", "team", "field"], "target": ""}]
    for split, rows in (("train", train), ("validation", validation), ("test", test)):
        write(root, f"data/{split}-00000-of-00001.parquet", rows)
    return {"train": train, "validation": validation, "test": test}


def cnn_dailymail(root: Path) -> None:
    """abisee/cnn_dailymail: <subset>/<split>-*.parquet; a second subset (1.0.0) must not be read."""
    for subset in ("3.0.0", "1.0.0"):
        for split, n in (("train", 6), ("validation", 3), ("test", 4)):
            rows = [{"article": f"({subset}) Article {split} {i}. It rained in Leeds.",
                     "highlights": f"Rain in Leeds {i}.\nMore rain.", "id": f"{split}{i}"} for i in range(n)]
            write(root, f"{subset}/{split}-00000-of-00001.parquet", rows)


def _cell(value: str, header: bool = False, row_span: int = 1, column_span: int = 1) -> dict:
    return {"column_span": column_span, "is_header": header, "row_span": row_span, "value": value}


# Season is a row header, the club cell spans two seasons, so row 2 has no club cell.
TOTTO_TABLE = [
    [_cell("Season", True), _cell("Club", True), _cell("Apps", True), _cell("Goals", True)],
    [_cell("2001", True), _cell("Leeds", row_span=2), _cell("30"), _cell("12")],
    [_cell("2002", True), _cell("28"), _cell("9")],
]


def totto_row(example_id: str, annotations: list[str], highlighted: list[list[int]], overlap: str | None) -> dict:
    row = {"id": 0, "table_page_title": "Ann  Smith", "table_webpage_url": "http://example.org",
           "table_section_title": "Career", "table_section_text": "", "table": TOTTO_TABLE,
           "highlighted_cells": highlighted, "example_id": example_id,
           "sentence_annotations": {"original_sentence": annotations, "sentence_after_deletion": annotations,
                                    "sentence_after_ambiguity": annotations, "final_sentence": annotations}}
    if overlap is not None:
        row["overlap_subset"] = overlap
    return row


def totto(root: Path) -> None:
    """google-research-datasets/totto as the hub's parquet conversion: default/<split>/0000.parquet."""
    train = [totto_row(f"t{i}", [f"Smith scored {i} goals."], [[2, 2]], None) for i in range(8)]
    validation = [totto_row("v0", ["In 2002 Smith scored 9 goals for Leeds.", "", "Smith: 9 goals in 2002."],
                            [[2, 0], [2, 2]], "overlap"),
                  totto_row("v1", ["Smith played 30 games in 2001."], [[1, 2]], "non-overlap")]
    test = [totto_row("x0", ["", "", ""], [[1, 1]], "overlap")]
    for split, rows in (("train", train), ("validation", validation), ("test", test)):
        write(root, f"default/{split}/0000.parquet", rows)


def translation(root: Path, subset: str, layout: str) -> None:
    """WMT16 (`<subset>/<split>-*.parquet`) or IWSLT2017 (`<subset>/<split>/0000.parquet`): translation{en,de}."""
    for split, n in (("train", 5), ("validation", 3), ("test", 3)):
        rows = [{"translation": {"de": f"Das Haus {subset} {split} {i}.", "en": f"The house {subset} {split} {i}."}}
                for i in range(n)]
        rows.append({"translation": {"de": "", "en": "An untranslated line."}})
        relative = f"{subset}/{split}-00000-of-00001.parquet" if layout == "files" else f"{subset}/{split}/0000.parquet"
        write(root, relative, rows)


def narrativeqa(root: Path) -> None:
    """deepmind/narrativeqa: data/<split>-*.parquet; the book sits in document.text and is never read."""
    for split, n in (("train", 4), ("validation", 2), ("test", 3)):
        rows = []
        for i in range(n):
            document = {"id": f"doc{i}", "kind": "gutenberg", "url": "http://example.org", "file_size": 10,
                        "word_count": 3, "start": "", "end": "", "text": "THE WHOLE BOOK " * 50,
                        "summary": {"text": f"Mira  lives in\nGreycliff {i}.", "tokens": ["Mira"],
                                    "url": "http://example.org", "title": "Mira"}}
            rows.append({"document": document, "question": {"text": "Where does Mira live?", "tokens": ["Where"]},
                         "answers": [{"text": f"Greycliff {i}", "tokens": ["Greycliff"]},
                                     {"text": f"In Greycliff {i}", "tokens": ["In"]}]})
        write(root, f"data/{split}-00000-of-00001.parquet", rows)


def dailydialog(root: Path) -> None:
    """li2017dailydialog/daily_dialog's parquet conversion: default/<split>/0000.parquet."""
    dialog = [f"Utterance {k} ? " if k % 2 else f"Utterance {k} . " for k in range(7)]
    for split in ("train", "validation", "test"):
        rows = [{"dialog": dialog, "act": [1, 2, 1, 3, 4, 2, 1], "emotion": [0, 0, 1, 0, 0, 4, 0]},
                {"dialog": dialog[:5], "act": [1] * 5, "emotion": [0] * 5}]  # too short: no sample
        write(root, f"default/{split}/0000.parquet", rows)
