"""What a saved Hugging Face model directory must hold to load: its config, its weights, its tokenizer.

Checked before a command loads one, so a folder copied in part (weights still uploading, a tokenizer
left behind) is named with what it lacks, instead of ending in a tokenizer or weights traceback
after the config, the data and the scorers have been loaded.
"""
from __future__ import annotations

from pathlib import Path

CONFIG = "config.json"
# Any one of these is the model's weights (single file or the index of a sharded save).
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json",
           "tf_model.h5", "flax_model.msgpack")
# Any one of these lets AutoTokenizer build the tokenizer (fast file, its config, or a slow vocabulary).
TOKENIZER = ("tokenizer.json", "tokenizer_config.json", "vocab.json", "vocab.txt", "spiece.model",
             "sentencepiece.bpe.model", "tokenizer.model")


def missing_model_files(directory: Path | str) -> list[str]:
    """What `directory` lacks to load as a model with its tokenizer (empty when complete)."""
    directory = Path(directory)
    missing = []
    if not (directory / CONFIG).is_file():
        missing.append(CONFIG)
    if not any((directory / name).is_file() for name in WEIGHTS):
        missing.append(f"weights ({' or '.join(WEIGHTS[:2])})")
    if not any((directory / name).is_file() for name in TOKENIZER):
        missing.append(f"a tokenizer ({' or '.join(TOKENIZER[:2])})")
    return missing
