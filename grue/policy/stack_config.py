"""The config that describes a model's decoder stack, for models whose config nests one per stack.

T5, BART and every causal LM keep their sizes (layers, heads, hidden size, vocabulary) on the model's
own config. transformers' EncoderDecoderModel, which joins two separately pretrained stacks (the
BERT2BERT warm start grue's mini seq2seq policy uses, grue.assets.warm_start), keeps only
`encoder` and `decoder` sub-configs there; the sizes that matter to decoding, the KV cache and a value
head are the decoder's.
"""
from __future__ import annotations

from typing import Any


def decoder_config(config: Any) -> Any:
    """`config.decoder` for a config made of one config per stack, else `config` itself."""
    nested = getattr(config, "decoder", None)
    return nested if nested is not None and hasattr(nested, "to_dict") else config


def stack_configs(config: Any) -> list[Any]:
    """The config of each stack: the nested encoder's and decoder's where there are any, else `config`."""
    nested = [getattr(config, name, None) for name in ("encoder", "decoder")]
    nested = [c for c in nested if c is not None and hasattr(c, "to_dict")]
    return nested or [config]


def position_limit(config: Any) -> int | None:
    """One stack's absolute position limit, or None where its positions are relative (T5)."""
    for key in ("n_positions", "max_position_embeddings", "n_ctx"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return None
