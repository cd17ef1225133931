"""IMDB-style review continuation data: hub IMDB parquet (paper) or packaged Rotten Tomatoes (mini).

The recipe follows the reference code (grue_spec.md 2.1): shuffle the train split with the split
seed and cut it 80/20 into train/val; test = the first 5,000 of the shuffled test split; the prompt
is the first half of the review's whitespace words (the policy tokenizer then left-truncates it),
and the reference is the whole review (perplexity is computed on it).
"""
from __future__ import annotations

from typing import Any

from grue.assets.resolve import is_packaged, parquet_split_files, resolve_dataset
from grue.assets.rotten_tomatoes import rotten_tomatoes_splits
from grue.data.sample import Sample
from grue.data.splits import cap, shuffled


def review_sample(sample_id: str, text: str, label: int) -> Sample:
    words = text.split()
    half = len(words) // 2
    prompt, continuation = " ".join(words[:half]), " ".join(words[half:])
    return Sample(id=sample_id, prompt=prompt, references=(text,),
                  meta={"label": int(label), "continuation": " " + continuation})


def _hub_imdb(source: str, seed: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    import pandas as pd  # here, not at the top: `grue tasks` and `grue config` list this task without its data

    root = resolve_dataset(source, task="imdb")
    frames = {split: pd.concat([pd.read_parquet(f) for f in parquet_split_files(root, split, "plain_text")])
              for split in ("train", "test")}
    rows = {split: list(zip(df["text"].astype(str), df["label"].astype(int))) for split, df in frames.items()}
    return rows["train"], rows["test"]


def load_imdb_splits(cfg: Any) -> dict[str, list[Sample]]:
    data = cfg.data
    if is_packaged(data.source):
        if data.source != "packaged:rotten-tomatoes":
            raise ValueError(f"unknown packaged review corpus {data.source!r}; use packaged:rotten-tomatoes")
        parts = rotten_tomatoes_splits(data.split_seed)
        train, val, test = parts["train"], parts["val"], parts["test"]
    else:
        train_rows, test_rows = _hub_imdb(data.source, data.split_seed)
        train_rows = shuffled(train_rows, data.split_seed)
        n_train = int(0.8 * len(train_rows))
        train, val = train_rows[:n_train], train_rows[n_train:]
        test = shuffled(test_rows, data.split_seed)
    splits = {"train": train, "val": val, "test": test}
    limits = {"train": data.max_train, "val": data.max_val, "test": data.max_test}
    return {name: [review_sample(f"{name}-{i}", text, label) for i, (text, label) in enumerate(cap(rows, limits[name]))]
            for name, rows in splits.items()}


def positive_only(sample: Sample) -> bool:
    """IMDB's supervised baseline trains on positive reviews only (paper B.3)."""
    return sample.meta.get("label") == 1


def continuation_target(sample: Sample) -> str:
    return sample.meta["continuation"]
