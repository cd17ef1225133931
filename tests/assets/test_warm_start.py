"""packaged:minilm2minilm: the BERT2BERT encoder-decoder built from the packaged MiniLM (grue.assets.warm_start)."""
import json

import torch

from grue.assets import packaged
from grue.assets.warm_start import HUB_COPY_OF, build_minilm2minilm


def test_it_is_built_once_loads_as_a_seq2seq_lm_and_ends_answers_with_sep(monkeypatch, tmp_path):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    monkeypatch.setenv("GRUE_CACHE", str(tmp_path))
    path = packaged.packaged_model("minilm2minilm")
    assert path == tmp_path / "models" / "minilm2minilm"
    model, tok = AutoModelForSeq2SeqLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    assert model.config.model_type == "encoder-decoder"
    # BERT's tokenizer has no EOS: [SEP] ends an answer, [CLS] starts the decoder, [PAD] pads
    assert (tok.eos_token, tok.eos_token_id) == ("[SEP]", model.config.eos_token_id)
    assert model.config.decoder_start_token_id == model.generation_config.decoder_start_token_id == tok.cls_token_id
    assert model.config.pad_token_id == tok.pad_token_id
    # the config names the hub model both stacks are copies of, not where this machine keeps the package
    config = json.loads((path / "config.json").read_text())
    assert config["encoder"]["_name_or_path"] == config["decoder"]["_name_or_path"] == HUB_COPY_OF
    # both stacks are MiniLM's pretrained weights; the decoder's own self-attention too
    from transformers import AutoModel

    base = AutoModel.from_pretrained(packaged.packaged_model("minilm"))
    query = "encoder.layer.0.attention.self.query.weight"
    assert torch.equal(model.encoder.get_parameter(query), base.get_parameter(query))
    assert torch.equal(model.decoder.bert.get_parameter(query), base.get_parameter(query))
    assert packaged.packaged_model("minilm2minilm") == path  # cached: not built twice


def test_the_new_weights_are_the_same_on_every_build(tmp_path):
    """Cross-attention is newly initialised; a fixed seed makes every machine's starting model the same,
    and the build leaves the caller's random stream where it was."""
    base = packaged.packaged_model("minilm")
    torch.manual_seed(123)
    build_minilm2minilm(tmp_path / "a", base)
    after_first = torch.rand(1)
    torch.manual_seed(123)
    build_minilm2minilm(tmp_path / "b", base)
    assert torch.equal(torch.rand(1), after_first)
    from safetensors.torch import load_file

    a, b = load_file(tmp_path / "a" / "model.safetensors"), load_file(tmp_path / "b" / "model.safetensors")
    cross = [k for k in a if "crossattention" in k]
    assert cross and all(torch.equal(a[k], b[k]) for k in a)
