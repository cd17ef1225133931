"""The mini profile's sentiment reward: MiniLM fine-tuned on the mini IMDB *train* split.

No transformer sentiment classifier installs from the registries, so the harness trains one from
the packaged all-MiniLM-L6-v2 on labelled Rotten Tomatoes snippets, once per split seed, and
caches it. Only the train part of that seed's split is used, so the classifier never sees a
validation or test prompt. Measured in the asset notes: ~0.89 accuracy on held-out sentences with
the full train set; a capped set trades a little accuracy for a set-up of about a minute.
"""
from __future__ import annotations

from pathlib import Path

import torch

from grue.assets.resolve import cache_root

TRAIN_CAP = 4000        # snippets; ~1.5 minutes on 2 CPU cores
MAX_LENGTH = 64
BATCH_SIZE = 32
LEARNING_RATE = 5e-5


def train_classifier(texts: list[str], labels: list[int], out_dir: Path, seed: int = 0) -> Path:
    """One epoch of AdamW over (text, label) pairs from MiniLM, saved to out_dir."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from grue.assets.packaged import packaged_model
    from grue.runtime.console import progress_bar

    torch.manual_seed(seed)
    base = str(packaged_model("minilm"))
    tok = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=2)
    model.train()
    optim = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    order = torch.randperm(len(texts)).tolist()
    steps = range(0, len(order), BATCH_SIZE)
    threads = torch.get_num_threads()
    with progress_bar(f"training the mini sentiment classifier (once; {threads} thread{'s' * (threads > 1)})",
                      len(steps)) as bar:
        for start in steps:
            idx = order[start:start + BATCH_SIZE]
            batch = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=MAX_LENGTH,
                        return_tensors="pt")
            loss = model(**batch, labels=torch.tensor([labels[i] for i in idx])).loss
            loss.backward()
            optim.step()
            optim.zero_grad()
            bar.advance(1, f"loss {loss.item():.3f}")
    model.eval().save_pretrained(out_dir)
    tok.save_pretrained(out_dir)
    return out_dir


def ensure_sentiment_classifier(split_seed: int) -> Path:
    from grue.assets.build_once import build_once

    def build(out: Path) -> None:
        from grue.assets.rotten_tomatoes import rotten_tomatoes_splits

        train = rotten_tomatoes_splits(split_seed)["train"][:TRAIN_CAP]
        train_classifier([t for t, _ in train], [y for _, y in train], out)

    return build_once(cache_root() / "models" / f"minilm-sentiment-split{split_seed}", build)
