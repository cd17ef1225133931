"""`packaged:minilm2minilm`: an encoder-decoder policy warm-started from two copies of the packaged MiniLM.

No T5 or BART checkpoint installs from the package registries, so the mini profile has no pretrained
seq2seq model. This asset is the BERT2BERT recipe (Rothe et al. 2020, "Leveraging Pre-trained
Checkpoints for Sequence Generation Tasks"): transformers' EncoderDecoderModel with both stacks from
all-MiniLM-L6-v2 (6 layers, 384 wide; 49M parameters in all). The encoder and the decoder's
self-attention and feed-forward weights are pretrained; the decoder's cross-attention and the head's
transform are new, so the model writes nothing sensible until a supervised run has trained it
(algo=supervised, then supervised_grpo and the other warm-started methods).

The new weights are drawn under a fixed seed, so every machine builds the same starting model. BERT's
tokenizer has no EOS or BOS token: its [SEP] ends an answer and its [CLS] starts the decoder, as in
the recipe.
"""
from __future__ import annotations

from pathlib import Path

from grue.assets.build_once import build_once
from grue.assets.resolve import cache_root

NAME = "minilm2minilm"
INIT_SEED = 0  # the new cross-attention and head weights
HUB_COPY_OF = "sentence-transformers/all-MiniLM-L6-v2"  # what the packaged MiniLM is (grue.results.model_card)


def build_minilm2minilm(out: Path, base: Path) -> None:
    """The warm-started EncoderDecoderModel and its tokenizer, saved to `out`."""
    import torch
    from transformers import AutoTokenizer, EncoderDecoderModel
    from transformers.utils import logging as hf_logging

    tok = AutoTokenizer.from_pretrained(str(base))
    tok.eos_token, tok.bos_token = tok.sep_token, tok.cls_token
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the expected "newly initialized: crossattention..." report
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(INIT_SEED)
            model = EncoderDecoderModel.from_encoder_decoder_pretrained(str(base), str(base))
    finally:
        hf_logging.set_verbosity(verbosity)
    for stack in (model.config.encoder, model.config.decoder):  # not this machine's path to the package
        stack._name_or_path = HUB_COPY_OF
    for config in (model.config, model.generation_config):
        config.decoder_start_token_id = tok.cls_token_id
        config.bos_token_id = tok.cls_token_id
        config.eos_token_id = tok.sep_token_id
        config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out)
    tok.save_pretrained(out)


def minilm2minilm() -> Path:
    from grue.assets.packaged import packaged_model

    return build_once(cache_root() / "models" / NAME, lambda out: build_minilm2minilm(out, packaged_model("minilm")))
