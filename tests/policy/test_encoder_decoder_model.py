"""Policies from transformers' EncoderDecoderModel (two stacks joined, each with its own config), the kind
the packaged `minilm2minilm` is: decoding, log-probs and a whole warm-started GRPO run."""
import json

import pytest
import torch

from grue.config import load_config
from grue.policy.seq2seq import Seq2SeqPolicy
from grue.policy.stack_config import decoder_config
from grue.results.schema import validate_results
from grue.run.runner import Run
from tests.policy.rollout_settings import rollout_settings
from tests.train.rl.test_rollout_consistency import LOGP_ATOL

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]


def tiny_bert2bert(vocab_size: int):
    """Two 2-layer BERT stacks of different widths joined (the decoder with cross-attention), so a size read
    from the wrong stack shows."""
    from transformers import BertConfig, EncoderDecoderConfig, EncoderDecoderModel

    torch.manual_seed(0)
    common = dict(vocab_size=vocab_size, num_hidden_layers=2, max_position_embeddings=128, pad_token_id=0,
                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    encoder = BertConfig(hidden_size=48, num_attention_heads=3, intermediate_size=96, **common)
    decoder = BertConfig(hidden_size=32, num_attention_heads=2, intermediate_size=64, **common)
    config = EncoderDecoderConfig.from_encoder_decoder_configs(encoder, decoder)
    config.decoder_start_token_id, config.eos_token_id, config.pad_token_id = 2, 1, 0
    return EncoderDecoderModel(config=config).eval()


@pytest.fixture
def bert2bert_policy(tiny_tokenizer):
    return Seq2SeqPolicy(tiny_bert2bert(len(tiny_tokenizer)), tiny_tokenizer, max_prompt_length=16,
                         padding_side="right", truncation_side="right")


def test_the_decoder_config_is_the_nested_one_and_a_plain_config_is_its_own(bert2bert_policy, tiny_t5):
    assert decoder_config(bert2bert_policy.model.config).hidden_size == 32
    assert bert2bert_policy.hidden_size == 32  # the value head reads the decoder's states, 32 wide
    assert decoder_config(tiny_t5.model.config) is tiny_t5.model.config


def test_the_position_limit_of_two_stacks_is_the_smaller(tiny_tokenizer):
    """Perplexity cuts its windows to it: either stack fails on a longer text."""
    from transformers import BertConfig, EncoderDecoderConfig, EncoderDecoderModel

    from grue.metrics.lm import model_max_positions

    small = dict(vocab_size=len(tiny_tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=32)
    config = EncoderDecoderConfig.from_encoder_decoder_configs(BertConfig(max_position_embeddings=96, **small),
                                                               BertConfig(max_position_embeddings=40, **small))
    assert model_max_positions(EncoderDecoderModel(config=config)) == 40


def test_sampled_log_probs_equal_the_teacher_forced_ones(bert2bert_policy):
    """The cached decode (encoder once, decoder step by step with its cross-attention cache) and the update's
    single teacher-forced pass give the same log-probs, as for T5 and causal LMs."""
    policy = bert2bert_policy
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(top_k=5, max_new_tokens=6, temperature=0.7))
    assert rollout.actions.shape == (len(PROMPTS), 6)
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=LOGP_ATOL)
    raw = policy.raw_log_probs(policy.model, rollout)
    assert torch.allclose(raw * rollout.valid, rollout.raw_logp, atol=LOGP_ATOL)


def test_a_prompt_longer_than_the_encoders_positions_is_refused_by_name(tiny_tokenizer):
    with pytest.raises(ValueError, match="max_prompt_length=200 is longer than the encoder's 128 positions"):
        Seq2SeqPolicy(tiny_bert2bert(len(tiny_tokenizer)), tiny_tokenizer, max_prompt_length=200)


def test_greedy_decode_equals_transformers_generate(bert2bert_policy):
    policy = bert2bert_policy
    prompts = policy.encode(PROMPTS)
    rollout = policy.sample(prompts, rollout_settings(do_sample=False, max_new_tokens=5, min_new_tokens=5))
    reference = policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                      max_new_tokens=5, min_new_tokens=5, do_sample=False,
                                      decoder_start_token_id=2, eos_token_id=1, pad_token_id=0)
    assert torch.equal(rollout.actions, reference[:, 1:])


def test_a_supervised_grpo_run_on_an_encoder_decoder_model(tiny_imdb_args, tiny_tokenizer, tmp_path):
    """Load from a directory, supervised warm start (the model's own loss from labels), GRPO, evaluation."""
    model_dir = tmp_path / "bert2bert"
    tiny_bert2bert(len(tiny_tokenizer)).save_pretrained(model_dir)
    tiny_tokenizer.save_pretrained(model_dir)
    args = [*tiny_imdb_args, "algo=supervised_grpo", f"model.policy={model_dir}", "model.kind=seq2seq",
            "model.padding_side=right", "model.truncation_side=right", "model.max_prompt_length=32"]
    path = Run(load_config(args), args).execute()
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == []
    assert json.loads((path / "model" / "config.json").read_text())["model_type"] == "encoder-decoder"
    train_log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert train_log and all(torch.isfinite(torch.tensor(r["loss/policy"])) for r in train_log)
    assert 1.0 < doc["metrics"]["test"]["perplexity"] < float("inf")  # scored within the stacks' positions


def test_grue_plan_counts_both_stacks_and_the_decoders_sizes(tiny_tokenizer, tmp_path):
    from grue.commands.plan import estimate, model_facts

    model = tiny_bert2bert(len(tiny_tokenizer))
    model.save_pretrained(tmp_path / "bert2bert")
    cfg = load_config(["task=commongen", "profile=mini", "algo=grpo", f"model.policy={tmp_path / 'bert2bert'}",
                       "model.kind=seq2seq"])
    facts = model_facts(cfg)
    assert facts.params == sum(p.numel() for p in model.parameters())
    # 2 encoder + 2 decoder layers; the 32-wide decoder (not the 48-wide encoder) with its 64-wide MLP
    assert (facts.layers, facts.hidden, facts.mlp, facts.vocab) == (4, 32, 64, len(tiny_tokenizer))
    assert estimate(cfg, facts).peak > 0
