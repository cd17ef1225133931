"""Recording log-probs during generation gives what generate()'s own scores and logits give.

The reference below is how rollouts were recorded before: generate() returns every step's processed
scores and raw logits ([B, T, V] each), and the log-probs are read off them afterwards. The recorders
must reproduce it token for token (same samples under the same seed) and value for value.
"""
from functools import partial

import pytest
import torch
from transformers import LogitsProcessorList

from grue.policy.load import frozen_copy
from grue.policy.masking import action_log_probs
from grue.policy.step_records import ChosenTokenLogProbs, recording_pipeline
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring mess that wastes its cast.", "I highly recommend", "dogs run"]


gen_cfg = partial(rollout_settings, max_new_tokens=7, decoder="generate")  # generate()'s recorders


def generate_records(policy, prompts, gen, processors=()):
    """(actions, sampling log-probs, raw log-probs, allowed mask) from generate()'s returned scores."""
    config = policy.generation_config(gen)
    config.update(return_dict_in_generate=True, output_scores=True, output_logits=True)
    out = policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                generation_config=config, logits_processor=LogitsProcessorList(list(processors)))
    actions = policy._actions(out.sequences, prompts)
    scores, raw = torch.stack(out.scores, dim=1), torch.stack(out.logits, dim=1).float()
    return actions, action_log_probs(scores, actions), action_log_probs(raw, actions), torch.isfinite(scores)


def assert_same_as_generate(policy, gen, make_processors=lambda prompts: (), seed=0):
    prompts = policy.encode(PROMPTS)
    torch.manual_seed(seed)
    rollout = policy.sample(prompts, gen, make_processors(prompts))
    torch.manual_seed(seed)
    actions, logp, raw_logp, allowed = generate_records(policy, prompts, gen, make_processors(prompts))
    assert torch.equal(rollout.actions, actions)  # the same pipeline draws the same tokens
    valid = rollout.valid.bool()
    assert torch.allclose(rollout.logp[valid], logp[valid], atol=1e-6, rtol=0)
    assert torch.allclose(rollout.raw_logp[valid], raw_logp[valid], atol=1e-6, rtol=0)
    expected_mask = allowed | ~valid.unsqueeze(-1)
    if rollout.action_mask is None:
        assert expected_mask.all()
    else:
        assert torch.equal(rollout.action_mask, expected_mask)
    return rollout


@pytest.mark.parametrize("settings", [
    dict(top_k=5, temperature=0.7, min_new_tokens=7),
    dict(top_p=0.8),
    dict(top_k=0, min_new_tokens=3),
    dict(top_k=4, top_p=0.9, temperature=1.3),
])
def test_causal_records_equal_generates_scores(tiny_causal_policy, settings):
    rollout = assert_same_as_generate(tiny_causal_policy, gen_cfg(**settings))
    if settings.get("top_k") or settings.get("top_p", 1.0) < 1.0:  # truncation: the sampling set is recorded
        assert rollout.action_mask is not None
        assert (rollout.logp - rollout.raw_logp)[rollout.valid.bool()].min() > 0


def test_episodes_ending_early_are_recorded_as_generate_does(tiny_causal_policy):
    policy = tiny_causal_policy
    bias = torch.zeros(policy.model.config.vocab_size)
    bias[policy.eos_id] = 1.5  # EOS likely: episodes end early, at different steps
    policy.model.lm_head.register_forward_hook(lambda m, i, o: o + bias)
    rollout = assert_same_as_generate(policy, gen_cfg(top_k=3, max_new_tokens=10), seed=3)
    assert (rollout.valid == 0).any() and rollout.valid.sum(-1).gt(1).any()


def test_nlpo_mask_records_equal_generates_scores(tiny_causal_policy):
    policy = tiny_causal_policy
    mask_model = frozen_copy(policy.model)
    with torch.no_grad():
        for p in mask_model.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    special = policy.special_token_ids()
    rollout = assert_same_as_generate(
        policy, gen_cfg(top_k=20, min_new_tokens=2),
        lambda prompts: [policy.mask_processor(mask_model, prompts, 0.5, 3, special)], seed=2)
    assert rollout.action_mask is not None


def test_seq2seq_records_equal_generates_scores(tiny_seq2seq_policy):
    assert_same_as_generate(tiny_seq2seq_policy, gen_cfg(top_k=5, temperature=0.7, min_new_tokens=4), seed=1)


def test_greedy_records_equal_generates_scores(tiny_causal_policy):
    assert_same_as_generate(tiny_causal_policy, gen_cfg(do_sample=False, top_k=None, temperature=None,
                                                        min_new_tokens=2))


def test_the_recorder_keeps_one_step_of_scores_not_every_step():
    recorder = ChosenTokenLogProbs(keep_allowed=True)
    scores = torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, float("-inf")]])
    recorder(torch.tensor([[5], [5]]), scores)
    recorder(torch.tensor([[5, 2], [5, 0]]), scores)  # settles step 0 with tokens 2 and 0
    assert len(recorder.values) == 1 and recorder._pending is not None
    out = recorder.finish(torch.tensor([[2, 1], [0, 1]]))
    log_z = [torch.logsumexp(torch.tensor([0.0, 1.0, 2.0]), 0), torch.logsumexp(torch.tensor([2.0, 1.0]), 0)]
    expected = torch.tensor([[2.0 - log_z[0], 1.0 - log_z[0]], [2.0 - log_z[1], 1.0 - log_z[1]]])
    assert torch.allclose(out, expected)
    assert recorder.allowed_mask()[1, :, 2].tolist() == [False, False]  # the -inf token, both steps
    assert recorder.allowed_mask()[0].all()


def test_recorded_values_are_bit_for_bit_the_full_log_softmax_at_the_chosen_tokens():
    """The recorder subtracts logsumexp at the chosen token only; the full vocabulary's x - logsumexp(x)
    (masking.action_log_probs' arithmetic) gives exactly the same numbers."""
    generator = torch.Generator().manual_seed(0)
    recorder = ChosenTokenLogProbs()
    steps = [torch.randn(4, 1000, generator=generator) * 8 for _ in range(3)]
    tokens = torch.randint(0, 1000, (4, 3), generator=generator)
    for t, scores in enumerate(steps):
        recorder(tokens[:, :t] if t else torch.zeros(4, 1, dtype=torch.long), scores)
    out = recorder.finish(tokens)
    full = torch.stack([(x - torch.logsumexp(x, -1, keepdim=True)).gather(-1, tokens[:, t:t + 1]).squeeze(-1)
                        for t, x in enumerate(steps)], dim=1)
    assert torch.equal(out, full)


def test_a_processor_writing_into_recorded_scores_is_caught():
    recorder = ChosenTokenLogProbs()
    scores = torch.zeros(2, 5)
    recorder(torch.zeros(2, 1, dtype=torch.long), scores)
    scores.add_(1.0)  # a later processor changing the scores in place would change the recorded values
    with pytest.raises(RuntimeError, match="changed its scores in place"):
        recorder(torch.zeros(2, 2, dtype=torch.long), torch.zeros(2, 5))


def test_beam_rollouts_are_refused():
    from transformers import GenerationConfig

    with pytest.raises(ValueError, match="num_beams=1"):
        recording_pipeline(GenerationConfig(num_beams=2), [], ChosenTokenLogProbs(), ChosenTokenLogProbs())
