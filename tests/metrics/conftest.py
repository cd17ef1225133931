"""Tiny sequence-classification models saved in the Hugging Face layout, for the model-based metrics."""
from __future__ import annotations

import pytest
import torch


@pytest.fixture(scope="session")
def classifier_dir(tiny_tokenizer, tmp_path_factory):
    """make(labels) -> a directory holding a random 2-layer BERT classifier with those label names
    (one label = a regression head, like BLEURT) and the tiny tokenizer."""
    from transformers import BertConfig, BertForSequenceClassification

    made: dict[tuple[str, ...], str] = {}

    def make(labels: tuple[str, ...]) -> str:
        if labels not in made:
            torch.manual_seed(len(made))
            config = BertConfig(vocab_size=len(tiny_tokenizer), hidden_size=32, num_hidden_layers=2,
                                num_attention_heads=2, intermediate_size=64, max_position_embeddings=128,
                                num_labels=len(labels), id2label=dict(enumerate(labels)),
                                label2id={name: i for i, name in enumerate(labels)}, pad_token_id=0)
            path = tmp_path_factory.mktemp("classifier")
            BertForSequenceClassification(config).eval().save_pretrained(path)
            tokenizer = tiny_tokenizer.__class__(tokenizer_object=tiny_tokenizer.backend_tokenizer,
                                                 pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                                 model_max_length=128)
            tokenizer.save_pretrained(path)
            made[labels] = str(path)
        return made[labels]

    return make

