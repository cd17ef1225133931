"""grue's decode loop (grue.policy.decode): the same tokens whatever the batching, records that are the
distribution the tokens were drawn from, greedy decoding as generate() does it, and draws that follow
the distribution they claim."""
from functools import partial
from types import SimpleNamespace

import pytest
import torch
from transformers import (LogitsProcessorList, MinNewTokensLengthLogitsProcessor, TemperatureLogitsWarper,
                          TopKLogitsWarper, TopPLogitsWarper)

from grue.data.sample import Sample
from grue.policy.base import valid_actions
from grue.policy.decode import buckets, decode, decode_many
from grue.policy.load import frozen_copy
from grue.policy.masking import action_log_probs
from grue.policy.sampling import FusedSampler, episode_keys, row_uniforms
from grue.run.evaluate import generate
from grue.train.rl.rollout import sample_rollout
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring mess that wastes its cast.", "I highly recommend", "dogs run",
           "It is a quiet, patient film about grief and the people who stay.", "Nothing works"]
SAMPLES = [Sample(f"s{i}", p, (p,)) for i, p in enumerate(PROMPTS)]
gen_cfg = partial(rollout_settings, max_new_tokens=8)
SETTINGS = [dict(top_k=5, temperature=0.7, min_new_tokens=2), dict(top_k=0, top_p=0.8),
            dict(top_k=4, top_p=0.9, temperature=1.3), dict(top_k=0, min_new_tokens=3)]


def eos_likely(policy, bias=None):
    """EOS made likely, so rows end at different steps and leave the batch."""
    bias = bias if bias is not None else 3.0 if policy.is_seq2seq else 1.5
    vocab = policy.model.config.vocab_size
    shift = torch.zeros(vocab)
    shift[policy.eos_id] = bias
    policy.model.get_output_embeddings().register_forward_hook(lambda m, i, o: o + shift)
    return policy


def episodes(policy, gen, rows):
    """(valid actions, sampled log-probs) per row, decoded in the groups of row indices `rows`."""
    keys = episode_keys(("test", 0), [s.id for s in SAMPLES])
    out = {}
    for group in rows:
        prompts = policy.encode([PROMPTS[i] for i in group])
        d = decode(policy, prompts, gen, [keys[i] for i in group], record=True)
        valid = valid_actions(d.actions, policy.eos_id).bool()
        for j, i in enumerate(group):
            out[i] = (d.actions[j][valid[j]].tolist(), d.logp[j][valid[j]])
    return out


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
@pytest.mark.parametrize("settings", SETTINGS[:2])
def test_the_tokens_do_not_depend_on_how_the_rows_are_batched(kind, settings, request):
    policy = eos_likely(request.getfixturevalue(f"tiny_{kind}_policy"))
    gen = gen_cfg(**settings)
    whole = episodes(policy, gen, [list(range(len(PROMPTS)))])
    alone = episodes(policy, gen, [[i] for i in range(len(PROMPTS))])
    fours = episodes(policy, gen, [[0, 1, 2, 3], [4, 5]])
    shuffled = episodes(policy, gen, [[5, 2, 0], [3, 1, 4]])
    lengths = {len(whole[i][0]) for i in whole}
    assert len(lengths) > 1  # some rows ended early and left the batch
    for other in (alone, fours, shuffled):
        for i in whole:
            assert whole[i][0] == other[i][0]
            assert torch.allclose(whole[i][1], other[i][1], atol=1e-5)


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_a_rollout_is_the_same_for_any_batch_cap_and_any_split_over_processes(kind, request):
    policy = eos_likely(request.getfixturevalue(f"tiny_{kind}_policy"))
    samples = [s for s in SAMPLES for _ in range(2)]  # groups of 2 copies, as a critic-free round holds them
    gen = gen_cfg(top_k=5)

    def tokens(rollout):
        return [row[v.bool()].tolist() for row, v in zip(rollout.actions, rollout.valid)]

    whole = tokens(sample_rollout(policy, samples, gen, 16, seed=3, iteration=2))
    one_row = tokens(sample_rollout(policy, samples, gen_cfg(top_k=5, max_batch_rows=1), 16, seed=3, iteration=2))
    # two processes, each with its contiguous block of whole groups (RLTrainer._my_samples)
    split = (tokens(sample_rollout(policy, samples[:6], gen, 16, seed=3, iteration=2))
             + tokens(sample_rollout(policy, samples[6:], gen, 16, seed=3, iteration=2)))
    assert whole == one_row == split
    assert any(whole[i] != whole[i + 1] for i in range(0, len(whole), 2))  # a group's copies are sampled apart
    assert whole != tokens(sample_rollout(policy, samples, gen, 16, seed=3, iteration=3))  # keyed per iteration


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_evaluation_texts_do_not_depend_on_the_batch_and_keep_the_samples_order(kind, request):
    policy = eos_likely(request.getfixturevalue(f"tiny_{kind}_policy"))
    gen = gen_cfg(top_k=5)
    whole = generate(policy, SAMPLES, gen, 2, seed=7)
    assert whole == generate(policy, SAMPLES, gen_cfg(top_k=5, max_batch_rows=2), 16, seed=7)
    assert whole == generate(policy, SAMPLES[:3], gen, 16, seed=7) + generate(policy, SAMPLES[3:], gen, 16, seed=7)
    assert whole != generate(policy, SAMPLES, gen, 2, seed=8)


def hf_processed(policy, gen, logits, step_actions, prompts):
    """The scores generate()'s own processors and warpers make of `logits` [B, T, V] (teacher-forced)."""
    processors = []
    if gen.min_new_tokens:
        processors.append(MinNewTokensLengthLogitsProcessor(0, gen.min_new_tokens, policy.eos_id))
    if gen.temperature != 1.0:
        processors.append(TemperatureLogitsWarper(gen.temperature))
    if gen.top_k:
        processors.append(TopKLogitsWarper(gen.top_k))
    if gen.top_p < 1.0:
        processors.append(TopPLogitsWarper(gen.top_p))
    steps = []
    for t in range(logits.shape[1]):
        steps.append(LogitsProcessorList(processors)(step_actions[:, :t], logits[:, t].clone()))
    return torch.stack(steps, dim=1)


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
@pytest.mark.parametrize("settings", SETTINGS)
def test_the_records_are_the_distribution_the_tokens_were_drawn_from(kind, settings, request):
    """The sampled log-prob, the raw log-prob and the allowed set equal what the PPO update recomputes, and
    the allowed set is the one generate()'s processors and warpers give the same logits."""
    policy = eos_likely(request.getfixturevalue(f"tiny_{kind}_policy"))
    gen = gen_cfg(**settings)
    rollout = sample_rollout(policy, SAMPLES, gen, 16, seed=0, iteration=0)
    valid = rollout.valid.bool()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp[valid], rollout.logp[valid], atol=1e-5)
    logits, _ = policy.forward(policy.model, rollout.prompts, rollout.actions, rollout.valid)
    assert torch.allclose(action_log_probs(logits, rollout.actions)[valid], rollout.raw_logp[valid], atol=1e-5)
    expected = torch.isfinite(hf_processed(policy, gen, logits.float(), rollout.actions, rollout.prompts))
    mask = rollout.action_mask if rollout.action_mask is not None else torch.ones_like(expected)
    assert torch.equal(mask[valid], expected[valid])
    assert (rollout.logp[valid] >= rollout.raw_logp[valid] - 1e-5).all()


def test_nlpo_masked_sampling_records_the_mask_and_draws_as_row_by_row(tiny_causal_policy):
    policy = eos_likely(tiny_causal_policy)
    mask_model = frozen_copy(policy.model)
    with torch.no_grad():
        for p in mask_model.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    special = policy.special_token_ids()
    gen = gen_cfg(top_k=20, min_new_tokens=2)
    processors = lambda prompts: [policy.mask_processor(mask_model, prompts, 0.5, 3, special)]  # noqa: E731
    rollout = sample_rollout(policy, SAMPLES, gen, 16, processors, seed=1, iteration=0)
    valid = rollout.valid.bool()
    assert rollout.action_mask is not None and (rollout.valid == 0).any()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp[valid], rollout.logp[valid], atol=1e-5)
    # the same tokens decoded one row at a time
    alone = sample_rollout(policy, SAMPLES, gen_cfg(top_k=20, min_new_tokens=2, max_batch_rows=1), 16, processors,
                           seed=1, iteration=0)
    assert [r[v.bool()].tolist() for r, v in zip(rollout.actions, rollout.valid)] == \
        [r[v.bool()].tolist() for r, v in zip(alone.actions, alone.valid)]


class _Counting:
    """Wraps a processor and records how many rows each call sees; `select` only where the inner one has it."""

    def __init__(self, inner, can_select=True):
        self.inner, self.rows = inner, []
        if can_select:
            self.select = inner.select

    def __call__(self, input_ids, scores):
        self.rows.append(scores.shape[0])
        return self.inner(input_ids, scores)


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_ended_rows_leave_the_mask_s_batch_as_they_leave_the_policy_s(kind, request):
    """NLPO kept finished rows in the batch (fed padding), so its rollout log-probabilities rounded unlike PPO's
    and a DailyDialog mini NLPO seed whose mask never bound drifted from PPO's at iteration 7. The mask now drops
    rows with the policy: it sees the policy's live rows, its masks are those of each row decoded alone, and a
    mask that keeps everything leaves the records PPO's to the last bit. A processor that cannot drop rows still
    keeps them all in."""
    policy = eos_likely(request.getfixturevalue(f"tiny_{kind}_policy"))
    mask_model = frozen_copy(policy.model)
    with torch.no_grad():
        for p in mask_model.parameters():
            p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(5)) * 0.5)
    special, gen = policy.special_token_ids(), gen_cfg(top_k=20, min_new_tokens=2)
    prompts = policy.encode(PROMPTS)
    keys = episode_keys(("test", 0), [s.id for s in SAMPLES])
    counting = _Counting(policy.mask_processor(mask_model, prompts, 0.5, 3, special))
    masked = decode(policy, prompts, gen, keys, [counting], record=True)
    lengths = valid_actions(masked.actions, policy.eos_id).sum(-1)
    assert (lengths < masked.actions.shape[1]).any()  # rows ended early
    assert counting.rows == [int((lengths > t).sum()) for t in range(len(counting.rows))]
    for i in range(len(PROMPTS)):  # each row's tokens as if decoded alone, with its own mask
        one = policy.encode([PROMPTS[i]])
        alone = decode(policy, one, gen, [keys[i]], [policy.mask_processor(mask_model, one, 0.5, 3, special)])
        n = int(lengths[i])
        assert masked.actions[i, :n].tolist() == alone.actions[0, :n].tolist(), i
    keep_all = policy.mask_processor(mask_model, prompts, 1.0, 10 ** 6, special)
    plain, unbound = decode(policy, prompts, gen, keys, record=True), decode(policy, prompts, gen, keys, [keep_all],
                                                                              record=True)
    assert torch.equal(plain.actions, unbound.actions) and torch.equal(plain.logp, unbound.logp)
    stays = _Counting(policy.mask_processor(mask_model, prompts, 0.5, 3, special), can_select=False)
    decode(policy, prompts, gen, keys, [stays])
    assert set(stays.rows) == {len(PROMPTS)}


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_greedy_decoding_gives_generates_tokens(kind, request):
    policy = eos_likely(request.getfixturevalue(f"tiny_{kind}_policy"), bias=0.5)
    gen = gen_cfg(do_sample=False, top_k=None, temperature=None, min_new_tokens=2)
    prompts = policy.encode(PROMPTS)
    out = policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                generation_config=policy.generation_config(gen))
    reference = policy._actions(out, prompts)
    mine = decode(policy, prompts, gen, [0] * len(PROMPTS)).actions
    assert torch.equal(mine, reference[:, :mine.shape[1]])
    assert policy.generate_text(prompts, gen) == policy.decode(reference, valid_actions(reference, policy.eos_id))


@pytest.mark.parametrize("top_k,top_p,temperature", [(0, 1.0, 1.0), (3, 1.0, 0.5), (0, 0.7, 1.0), (4, 0.8, 2.0)])
def test_the_fused_sampler_draws_from_the_distribution_it_records(top_k, top_p, temperature):
    torch.manual_seed(0)
    logits = torch.randn(1, 8) * 2
    rows = 20000
    gen = SimpleNamespace(do_sample=True, top_k=top_k, top_p=top_p, temperature=temperature, min_new_tokens=0)
    sampler = FusedSampler(gen, eos_id=None)
    u = row_uniforms(episode_keys("draws", range(rows)), 1)[:, 0]
    tokens, logp, _, allowed = sampler(logits.expand(rows, -1), 0, u, (), None, record=True)
    counts = torch.bincount(tokens, minlength=8).float() / rows
    probs = torch.zeros(8)
    probs[tokens] = logp.exp()  # every row's record of its own token's probability
    assert torch.allclose(counts, probs, atol=0.015)
    if allowed is not None:
        assert allowed[:, tokens].all() and counts[~allowed[0]].sum() == 0


def test_a_tie_at_the_kth_value_keeps_every_tied_token_as_generate_does():
    logits = torch.tensor([[3.0, 1.0, 1.0, 0.0]])
    gen = SimpleNamespace(do_sample=True, top_k=2, top_p=1.0, temperature=1.0, min_new_tokens=0)
    _, _, _, allowed = FusedSampler(gen, None)(logits, 0, torch.tensor([0.99], dtype=torch.float64), (), None, True)
    assert allowed.tolist() == [[True, True, True, False]]


def test_buckets_hold_everything_at_once_when_it_fits_and_sort_by_length_when_not():
    assert buckets([3, 9, 5], cap=8) == [[0, 1, 2]]
    assert buckets([3, 9, 5, 7], cap=2) == [[1, 3], [2, 0]]


def test_the_decoder_setting_selects_generate_as_before(tiny_causal_policy):
    """decoder=generate: generate() with torch's global generator, exactly as grue sampled before."""
    policy = tiny_causal_policy
    gen = gen_cfg(top_k=5, decoder="generate")
    prompts = policy.encode(PROMPTS)
    torch.manual_seed(4)
    rollout = policy.sample(prompts, gen)
    torch.manual_seed(4)
    out = policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                generation_config=policy.generation_config(gen))
    assert torch.equal(rollout.actions, policy._actions(out, prompts))


def test_decode_many_returns_each_bucket_with_its_rows(tiny_causal_policy):
    policy = tiny_causal_policy
    prompts = policy.encode(PROMPTS)
    keys = episode_keys("k", range(len(PROMPTS)))
    parts = decode_many(policy, prompts, gen_cfg(max_batch_rows=4), keys)
    assert sorted(i for rows, _, _ in parts for i in rows) == list(range(len(PROMPTS)))
    assert [len(rows) for rows, _, _ in parts] == [4, 2]
    for rows, bucket, out in parts:
        assert out.actions.shape[0] == len(rows) == bucket.input_ids.shape[0]
