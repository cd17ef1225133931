"""Tiny offline models shared by all tests: a byte-level BPE tokenizer trained here, 2-layer GPT-2/T5."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

# Tiny models gain nothing from a second thread and lose a lot when the machine is busy; tests that
# run the packaged real models ask for their threads through the run config (`threads=`).
torch.set_num_threads(1)

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


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory, tiny_tokenizer):
    """A tiny GPT-2 policy and a tiny BERT sentiment classifier saved as local Hugging Face directories,
    so the real loading path (`from_pretrained` on a directory) runs end to end in seconds."""
    from transformers import BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel

    root = tmp_path_factory.mktemp("tiny_models")
    tiny_tokenizer.model_max_length = 128
    torch.manual_seed(0)
    gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=len(tiny_tokenizer), n_positions=128, n_embd=32, n_layer=2,
                                      n_head=2, bos_token_id=1, eos_token_id=1, pad_token_id=0,
                                      resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))
    gpt2.save_pretrained(root / "policy")
    tiny_tokenizer.save_pretrained(root / "policy")
    clf = BertForSequenceClassification(BertConfig(vocab_size=len(tiny_tokenizer), hidden_size=32, num_hidden_layers=1,
                                                   num_attention_heads=2, intermediate_size=64,
                                                   max_position_embeddings=128, num_labels=2, pad_token_id=0))
    clf.save_pretrained(root / "classifier")
    tiny_tokenizer.save_pretrained(root / "classifier")
    return SimpleNamespace(policy=str(root / "policy"), classifier=str(root / "classifier"))


@pytest.fixture
def tiny_imdb_args(tiny_model_dirs, tmp_path):
    """`grue run` arguments for a seconds-long IMDB mini run on the tiny models (real data, real code)."""
    return ["task=imdb", "profile=mini", f"model.policy={tiny_model_dirs.policy}",
            f"reward.model={tiny_model_dirs.classifier}", "data.max_train=16", "data.max_val=6", "data.max_test=6",
            "rollout.max_new_tokens=6", "rollout.min_new_tokens=6", "generation.max_new_tokens=6",
            "generation.min_new_tokens=6", "ppo.steps_per_update=24", "ppo.total_steps=120",
            "ppo.rollout_batch_size=4", "ppo.batch_size=12", "ppo.learning_rate=1e-3", "eval.eval_every=2",
            "eval.save_every=1", "eval.batch_size=6", "supervised.batch_size=4", "supervised.epochs=1",
            "data.max_train=16", f"output_dir={tmp_path / 'runs'}", "threads=1"]


@pytest.fixture
def tiny_seq2seq_policy(tiny_tokenizer):
    """A fresh trainable Seq2SeqPolicy around a 2-layer T5 (function scope: tests may train it);
    prompts padded left and truncated right, as the paper's T5 tasks do."""
    from transformers import T5Config, T5ForConditionalGeneration

    from grue.policy.seq2seq import Seq2SeqPolicy

    torch.manual_seed(0)
    config = T5Config(vocab_size=len(tiny_tokenizer), d_model=32, d_kv=8, d_ff=64, num_layers=2,
                      num_decoder_layers=2, num_heads=2, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0, dropout_rate=0.0)
    return Seq2SeqPolicy(T5ForConditionalGeneration(config).eval(), tiny_tokenizer, max_prompt_length=16,
                         padding_side="left", truncation_side="right")


@pytest.fixture(scope="session")
def tiny_t5_dir(tmp_path_factory, tiny_tokenizer):
    """A tiny T5 saved as a local Hugging Face directory, for whole runs with `model.kind=seq2seq`."""
    from transformers import T5Config, T5ForConditionalGeneration

    root = tmp_path_factory.mktemp("tiny_t5")
    torch.manual_seed(0)
    T5ForConditionalGeneration(T5Config(vocab_size=len(tiny_tokenizer), d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                        num_decoder_layers=2, num_heads=2, pad_token_id=0, eos_token_id=1,
                                        decoder_start_token_id=0, dropout_rate=0.0)).save_pretrained(root)
    tiny_tokenizer.save_pretrained(root)
    return str(root)
