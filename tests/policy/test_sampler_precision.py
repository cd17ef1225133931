"""A sampler at bf16 beside an fp32 learner (rollout.precision, grue/policy/precision.py): the copy is never
stale, and the log-probs the update reads are the learner's over the sampler's support."""
from __future__ import annotations

from types import SimpleNamespace

import torch

from grue.data.sample import Sample
from grue.policy.precision import sampling_policy
from grue.train.rl.rollout import sample_rollout
from grue.train.rl.trainer import build_optimizer

PROMPTS = ["The film was", "dogs run in", "A tedious", "I"]


def gen(precision="bf16", top_k=5, temperature=1.0, min_new_tokens=2):
    return SimpleNamespace(do_sample=True, top_k=top_k, top_p=1.0, temperature=temperature, num_beams=1,
                           length_penalty=1.0, min_new_tokens=min_new_tokens, max_new_tokens=6, decoder="grue",
                           max_batch_rows=0, precision=precision)


def samples():
    return [Sample(str(i), p, ("",)) for i, p in enumerate(PROMPTS * 2)]


def copy_matches(policy, view):
    """Whether every weight of the sampler's copy is the bf16 rounding of the learner's present weight."""
    return all(torch.equal(mine, theirs.to(mine.dtype))
               for mine, theirs in zip(view.model.state_dict().values(), policy.model.state_dict().values()))


def test_fp32_samples_with_the_policy_itself(tiny_causal_policy):
    assert sampling_policy(tiny_causal_policy, "fp32") is tiny_causal_policy


def test_the_bf16_copy_is_bf16_and_the_learner_stays_fp32(tiny_causal_policy):
    view = sampling_policy(tiny_causal_policy, "bf16")
    assert {p.dtype for p in view.model.parameters()} == {torch.bfloat16}
    assert {p.dtype for p in tiny_causal_policy.model.parameters()} == {torch.float32}
    assert copy_matches(tiny_causal_policy, view)


def test_a_stale_copy_is_impossible_after_an_optimizer_step_or_a_load(tiny_causal_policy):
    policy = tiny_causal_policy
    first = sampling_policy(policy, "bf16")
    before = [p.detach().clone() for p in first.model.parameters()]
    # the trainer's own optimizer: torch's fused AdamW, which writes the weights without bumping their versions
    optimizer = build_optimizer([policy.model], lr=1e-2, weight_decay=0.0)
    batch = policy.encode(PROMPTS)
    policy.model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits.float().pow(2).mean().backward()
    optimizer.step()
    after_step = sampling_policy(policy, "bf16")
    assert copy_matches(policy, after_step)
    assert any(not torch.equal(a, b) for a, b in zip(before, after_step.model.parameters()))
    # a resume's load_state_dict
    state = {k: v + 0.5 if v.is_floating_point() else v for k, v in policy.model.state_dict().items()}
    policy.model.load_state_dict(state)
    assert copy_matches(policy, sampling_policy(policy, "bf16"))


def test_an_unchanged_policy_is_not_copied_again(tiny_causal_policy):
    sampling_policy(tiny_causal_policy, "bf16")
    cached = tiny_causal_policy.__dict__["_grue_sampler_copy"]
    sampling_policy(tiny_causal_policy, "bf16")
    assert cached.refreshes == 0


def learner_log_probs_by_hand(policy, rollout):
    """One full fp32 forward per episode: log softmax(logits / T) over the tokens the sampler allowed."""
    out = torch.zeros_like(rollout.logp)
    for i in range(rollout.actions.shape[0]):
        prompt = rollout.prompts.input_ids[i][rollout.prompts.attention_mask[i] > 0]
        n = int(rollout.valid[i].sum())
        ids = torch.cat([prompt, rollout.actions[i, :n]])
        with torch.no_grad():
            logits = policy.model(input_ids=ids[None]).logits[0, len(prompt) - 1:len(prompt) - 1 + n].float()
        scaled = logits / rollout.temperature
        if rollout.action_mask is not None:
            scaled = scaled.masked_fill(~rollout.action_mask[i, :n], float("-inf"))
        out[i, :n] = torch.log_softmax(scaled, -1).gather(-1, rollout.actions[i, :n, None])[:, 0]
    return out


def test_the_old_log_probs_are_the_learners_over_the_samplers_support(tiny_causal_policy):
    policy = tiny_causal_policy
    torch.manual_seed(0)
    rollout = sample_rollout(policy, samples(), gen(temperature=0.7), 8, seed=0, iteration=0)
    assert rollout.action_mask is not None  # top-k 5 and the min-length rule: a support smaller than the vocabulary
    assert rollout.action_mask.sum(-1)[rollout.valid > 0].max() < rollout.action_mask.shape[-1]
    want = learner_log_probs_by_hand(policy, rollout)
    assert torch.allclose(rollout.logp, want, atol=1e-5)
    # not the whole vocabulary's: the support's renormalisation makes every log-prob larger
    whole = learner_log_probs_by_hand(policy, type(rollout)(**{**vars(rollout), "action_mask": None}))
    assert bool(((rollout.logp - whole)[rollout.valid > 0] > 1e-4).all())
    # and not the sampler's own: the bf16 copy's log-probs differ from them
    assert rollout.sampler_logp is not None
    assert (rollout.sampler_logp - rollout.logp)[rollout.valid > 0].abs().max() > 1e-4


def test_the_fp32_rollout_keeps_the_samplers_records_and_no_second_copy(tiny_causal_policy):
    rollout = sample_rollout(tiny_causal_policy, samples(), gen(precision="fp32"), 8, seed=0, iteration=0)
    assert rollout.sampler_logp is None
    assert "_grue_sampler_copy" not in tiny_causal_policy.__dict__


def test_evaluation_generation_decodes_with_the_copy(tiny_causal_policy, monkeypatch):
    from grue.policy import decode as decode_module

    seen = []
    real = decode_module.decode

    def spy(policy, *args, **kwargs):
        seen.append(next(policy.model.parameters()).dtype)
        return real(policy, *args, **kwargs)

    monkeypatch.setattr(decode_module, "decode", spy)
    batch = tiny_causal_policy.encode(PROMPTS)
    tiny_causal_policy.generate_text(batch, gen(precision="bf16"), keys=[1, 2, 3, 4])
    tiny_causal_policy.generate_text(batch, gen(precision="fp32"), keys=[1, 2, 3, 4])
    assert seen == [torch.bfloat16, torch.float32]



def test_the_copys_vocabulary_head_reads_contiguous_states(tiny_causal_policy):
    """The prompt pass hands the head a strided view of the last position; the copy makes it contiguous (torch's
    CPU matmul would otherwise expand the whole bf16 head weight once per row)."""
    view = sampling_policy(tiny_causal_policy, "bf16")
    seen = []
    hook = view.model.get_output_embeddings().register_forward_hook(
        lambda module, args, out: seen.append(args[0].is_contiguous()))
    sample_rollout(tiny_causal_policy, samples(), gen(), 8, seed=0, iteration=0)
    hook.remove()
    assert seen and all(seen)
