"""An encoder-decoder policy keeps the causal policy's promises: what sampling records equals what the
update recomputes (NLPO mask included), critics read decoder states, prompts are encoded as configured."""
import math

import pytest
import torch
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.policy.load import build_value, frozen_copy, load_policy
from grue.policy.seq2seq import Seq2SeqPolicy
from grue.train.rl.nlpo_mask import top_p_mask
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring mess that wastes its cast.", "I highly recommend", "dogs"]


gen_cfg = rollout_settings


def test_prompts_are_encoder_inputs_padded_left_and_truncated_right(tiny_seq2seq_policy):
    policy = tiny_seq2seq_policy
    policy.max_prompt_length = 4
    batch = policy.encode(["dogs", "The film was a delight from start to finish."])
    full = policy.tokenizer("The film was a delight from start to finish.")["input_ids"]
    assert batch.input_ids[1].tolist() == full[:4]                    # the beginning is kept
    assert batch.attention_mask[0].tolist()[0] == 0 and batch.attention_mask[0].tolist()[-1] == 1
    assert policy.tokenizer.padding_side == "right"  # left padding is per call: seq2seq labels still pad right


def test_actions_follow_the_decoder_start_token(tiny_seq2seq_policy):
    policy = tiny_seq2seq_policy
    torch.manual_seed(0)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(max_new_tokens=5))
    assert rollout.actions.shape == (4, 5) and rollout.logp.shape == (4, 5)
    assert policy.decoder_inputs(rollout.actions)[:, 0].eq(policy.decoder_start_id).all()
    assert torch.equal(policy.decoder_inputs(rollout.actions)[:, 1:], rollout.actions[:, :-1])


def test_recomputed_log_probs_equal_sampling_time_log_probs_with_top_k_and_min_length(tiny_seq2seq_policy):
    policy = tiny_seq2seq_policy
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(top_k=5, min_new_tokens=6, temperature=0.7))
    assert rollout.action_mask is not None and rollout.action_mask[..., policy.eos_id].logical_not().all()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=1e-5)
    raw = policy.raw_log_probs(policy.model, rollout)
    assert torch.allclose(raw * rollout.valid, rollout.raw_logp, atol=1e-5)
    assert (rollout.logp - rollout.raw_logp)[rollout.valid.bool()].min() > 0  # top-k truncation


def test_episodes_that_end_early_are_scored_like_generation(tiny_seq2seq_policy):
    """Rows that stop at EOS are padded by generate(); their valid steps still match exactly."""
    policy = tiny_seq2seq_policy
    head = torch.nn.Linear(policy.hidden_size, policy.model.config.vocab_size, bias=True)
    with torch.no_grad():  # an EOS bias makes some episodes end early
        head.weight.copy_(policy.model.lm_head.weight)
        head.bias.zero_()
        head.bias[policy.eos_id] = 4.0
    policy.model.lm_head = head
    torch.manual_seed(3)
    rollout = policy.sample(policy.encode(PROMPTS * 2), gen_cfg(max_new_tokens=8))
    lengths = rollout.valid.sum(-1)
    assert lengths.lt(8).any() and lengths.gt(1).any(), f"episode lengths {lengths.tolist()} test nothing"
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=1e-5)


def test_nlpo_mask_is_the_mask_models_top_p_set_and_is_reused_in_the_loss(tiny_seq2seq_policy):
    policy = tiny_seq2seq_policy
    mask_model = frozen_copy(policy.model)
    with torch.no_grad():  # make the masking model differ from the policy
        for p in mask_model.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    prompts = policy.encode(PROMPTS)
    special = policy.special_token_ids()
    processor = policy.mask_processor(mask_model, prompts, top_p=0.5, min_tokens_to_keep=3, never_mask=special)
    torch.manual_seed(2)
    rollout = policy.sample(prompts, gen_cfg(max_new_tokens=5), [processor])
    # the stored mask equals the top-p set of a full (uncached) encoder-decoder pass of the masking model
    logits, _ = policy.forward(mask_model, rollout.prompts, rollout.actions, rollout.valid)
    expected = top_p_mask(logits.float(), 0.5, 3, special)
    valid = rollout.valid.bool()
    assert torch.equal(rollout.action_mask[valid], expected[valid])
    assert rollout.action_mask[valid].sum(-1).lt(rollout.action_mask.shape[-1]).all()  # it really masks
    taken = rollout.action_mask.gather(-1, rollout.actions.unsqueeze(-1)).squeeze(-1)
    assert taken[valid].all()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=1e-5)


@pytest.mark.parametrize("value_model", ["separate", "shared"])
def test_critics_read_decoder_states(tiny_seq2seq_policy, value_model):
    policy = tiny_seq2seq_policy
    cfg = OmegaConf.merge(OmegaConf.structured(RunConfig), {"model": {"value_model": value_model}})
    value = build_value(cfg, policy)
    torch.manual_seed(4)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(max_new_tokens=4))
    _, _, decoder_states = policy.log_probs(policy.model, rollout, hidden=True)
    assert decoder_states.shape == (4, 4, policy.hidden_size)
    if value_model == "separate":  # a copy of encoder + decoder without the vocabulary head
        assert not hasattr(value.trunk, "lm_head")
        assert {n for n, _ in value.trunk.named_parameters()} >= {"encoder.block.0.layer.0.SelfAttention.q.weight"}
        assert all(p.data_ptr() != q.data_ptr() for p, q in zip(value.trunk.parameters(), policy.model.parameters()))
    # the critic starts from the policy's weights, so its states are the policy's decoder states
    assert torch.allclose(value.values(policy, rollout), value.head(decoder_states), atol=1e-5)


def test_perplexity_metric_reads_the_seq2seq_policy(tiny_seq2seq_policy):
    from grue.metrics.base import MetricInputs
    from grue.metrics.lm import PerplexityScorer

    policy = tiny_seq2seq_policy
    policy.encode(PROMPTS)  # encoding left-padded prompts must not change how the metric pads labels
    prompts, refs = ["The film was", "dogs run in"], [["a delight"], ["the park while the sun sets"]]
    total, count = 0.0, 0
    for prompt, (ref,) in zip(prompts, refs):
        enc = policy.tokenizer(prompt, text_target=ref, return_tensors="pt")
        with torch.no_grad():
            loss = policy.model(input_ids=enc["input_ids"], labels=enc["labels"]).loss
        total, count = total + loss.item() * enc["labels"].shape[1], count + enc["labels"].shape[1]
    inputs = MetricInputs(prompts=prompts, generations=["x", "y"], references=refs)
    got = PerplexityScorer(policy, stride=512, max_length=1024, batch_size=2).compute(inputs)
    assert got["perplexity"].corpus == pytest.approx(math.exp(total / count), rel=1e-5)


def test_load_policy_builds_a_seq2seq_policy_from_a_hub_format_directory(tiny_seq2seq_policy, tmp_path):
    tiny_seq2seq_policy.model.save_pretrained(tmp_path)
    tiny_seq2seq_policy.tokenizer.save_pretrained(tmp_path)
    cfg = OmegaConf.merge(OmegaConf.structured(RunConfig), {
        "task": "commongen", "model": {"kind": "seq2seq", "padding_side": "left", "truncation_side": "right"}})
    policy = load_policy(cfg, str(tmp_path), "cpu")
    assert isinstance(policy, Seq2SeqPolicy) and policy.is_seq2seq and not policy.model.training
    assert policy.tokenizer.pad_token_id == 0 and policy.tokenizer.pad_token_id != policy.eos_id
    text = policy.generate_text(policy.encode(PROMPTS[:2]), gen_cfg(do_sample=False, max_new_tokens=3))
    assert len(text) == 2
