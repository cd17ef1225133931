"""Tiny offline models shared by all tests: a byte-level BPE tokenizer trained here, 2-layer GPT-2/T5."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

SENTENCES = [
    "The film was a delight from start to finish.",
    "A tedious, boring mess that wastes its cast.",
    "I highly recommend this movie to everyone!",
    "The plot makes no sense and the acting is wooden.",
    "Ein schöner Film über Freundschaft und Verlust.",
    "dogs run in the park while the sun sets",
]


@pytest.fixture(scope="session")
def tiny_tokenizer():
    """A real fast tokenizer (byte-level BPE, so any unicode and "\\n\\n" round-trip) built offline."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(SENTENCES * 4, vocab_size=400, min_frequency=1,
                            special_tokens=["<pad>", "</s>", "<unk>"], show_progress=False)
    return PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, pad_token="<pad>",
                                   eos_token="</s>", unk_token="<unk>")


@pytest.fixture(scope="session")
def tiny_gpt2(tiny_tokenizer):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tiny_tokenizer), n_positions=64, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=1, eos_token_id=1, pad_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    return SimpleNamespace(model=model, tokenizer=tiny_tokenizer, is_seq2seq=False, device="cpu")


@pytest.fixture(scope="session")
def tiny_t5(tiny_tokenizer):
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(vocab_size=len(tiny_tokenizer), d_model=32, d_kv=8, d_ff=64, num_layers=2,
                      num_decoder_layers=2, num_heads=2, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0)
    model = T5ForConditionalGeneration(config).eval()
    return SimpleNamespace(model=model, tokenizer=tiny_tokenizer, is_seq2seq=True, device="cpu")


@pytest.fixture
def tiny_causal_policy(tiny_tokenizer):
    """A fresh trainable CausalPolicy around a 2-layer GPT-2 (function scope: tests may train it)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from grue.policy.causal import CausalPolicy

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tiny_tokenizer), n_positions=64, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=1, eos_token_id=1, pad_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0)
    return CausalPolicy(GPT2LMHeadModel(config).eval(), tiny_tokenizer, max_prompt_length=16)
