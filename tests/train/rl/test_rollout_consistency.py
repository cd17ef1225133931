"""What sampling records must equal what the update recomputes, NLPO mask included."""
from types import SimpleNamespace

import torch

from grue.policy.load import frozen_copy
from grue.policy.mask_processor import CausalMaskProcessor
from grue.train.rl.nlpo_mask import top_p_mask
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]


gen_cfg = rollout_settings

# Recorded and recomputed log-probs agree to float rounding. tests/train/test_mixed_precision.py runs the tests
# here inside a bf16 autocast and widens this to bf16's rounding where the CPU has no native bf16 products.
LOGP_ATOL = 1e-5


def test_recomputed_log_probs_equal_sampling_time_log_probs_with_top_k_and_min_length(tiny_causal_policy):
    policy = tiny_causal_policy
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(top_k=5, min_new_tokens=6, temperature=0.7))
    assert rollout.action_mask is not None and rollout.action_mask[..., policy.eos_id].logical_not().all()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=LOGP_ATOL)
    raw = policy.raw_log_probs(policy.model, rollout)
    assert torch.allclose(raw * rollout.valid, rollout.raw_logp, atol=LOGP_ATOL)
    # top-k truncation makes the sampling log-prob strictly larger than the full-distribution one
    assert (rollout.logp - rollout.raw_logp)[rollout.valid.bool()].min() > 0


def test_nlpo_mask_is_the_mask_models_top_p_set_and_is_reused_in_the_loss(tiny_causal_policy):
    policy = tiny_causal_policy
    mask_model = frozen_copy(policy.model)
    with torch.no_grad():  # make the masking model differ from the policy
        for p in mask_model.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    prompts = policy.encode(PROMPTS)
    special = policy.special_token_ids()
    processor = CausalMaskProcessor(mask_model, prompts, top_p=0.5, min_tokens_to_keep=3, never_mask=special)
    torch.manual_seed(2)
    rollout = policy.sample(prompts, gen_cfg(max_new_tokens=5), [processor])
    # the stored mask equals the top-p set of a full (uncached) forward of the masking model
    logits, _ = policy.forward(mask_model, rollout.prompts, rollout.actions, rollout.valid)
    expected = top_p_mask(logits.float(), 0.5, 3, special)
    valid = rollout.valid.bool()
    assert torch.equal(rollout.action_mask[valid], expected[valid])
    assert rollout.action_mask[valid].sum(-1).lt(rollout.action_mask.shape[-1]).all()  # it really masks
    # every sampled action is inside the mask, and the update sees the same masked distribution
    taken = rollout.action_mask.gather(-1, rollout.actions.unsqueeze(-1)).squeeze(-1)
    assert taken[valid].all()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=LOGP_ATOL)


def test_valid_stops_after_first_eos():
    from grue.policy.causal import valid_actions

    actions = torch.tensor([[5, 1, 1, 1], [5, 6, 7, 8]])
    assert valid_actions(actions, 1).tolist() == [[1, 1, 0, 0], [1, 1, 1, 1]]


def test_episodes_ending_early_under_top_k_give_finite_log_probs_and_loss(tiny_causal_policy):
    """Padding after EOS falls outside top-k; it must not turn into -inf * 0 = NaN."""
    policy = tiny_causal_policy
    bias = torch.zeros(policy.model.config.vocab_size)
    bias[policy.eos_id] = 4.0  # make EOS likely so episodes end early
    policy.model.lm_head.register_forward_hook(lambda m, i, o: o + bias)
    torch.manual_seed(6)  # keys under which one episode outlives the others (grue.policy.sampling)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(top_k=3, max_new_tokens=8))
    assert (rollout.valid == 0).any()  # some episodes really ended early
    assert torch.isfinite(rollout.logp).all() and torch.isfinite(rollout.raw_logp).all()
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.isfinite(new_logp).all()
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=LOGP_ATOL)


def test_mask_bound_counter_counts_steps_where_the_mask_removes_a_top_k_candidate():
    processor = CausalMaskProcessor(None, SimpleNamespace(attention_mask=None), top_p=0.9, min_tokens_to_keep=1,
                                    never_mask=())
    scores = torch.tensor([[4.0, 3.0, 2.0, 1.0, 0.0],
                           [4.0, 3.0, 2.0, 1.0, 0.0]])
    keep = torch.tensor([[True, True, True, True, False],    # drops only the 5th-best token
                         [False, True, True, True, True]])   # drops the best token
    processor.top_k = 2
    processor._count(scores, keep)
    assert (processor.steps, processor.bound) == (2, 1)      # row 1 keeps its top 2; row 2 loses one
    processor.top_k = 0                                       # no top-k: every candidate counts
    processor._count(scores, keep)
    assert (processor.steps, processor.bound) == (4, 3)
    scores[0, 4] = float("-inf")                              # an already-impossible token is no candidate
    processor._count(scores, keep)
    assert (processor.steps, processor.bound) == (6, 4)


def test_fresh_mask_keeping_at_least_top_k_tokens_never_binds(tiny_causal_policy):
    """min_tokens_to_keep >= top_k with the masking model equal to the policy: NLPO samples as PPO."""
    policy = tiny_causal_policy
    prompts = policy.encode(PROMPTS)
    special = policy.special_token_ids()
    loose = CausalMaskProcessor(frozen_copy(policy.model), prompts, top_p=0.5, min_tokens_to_keep=5, never_mask=special)
    loose.top_k = 5
    policy.sample(prompts, gen_cfg(top_k=5, max_new_tokens=5), [loose])
    tight = CausalMaskProcessor(frozen_copy(policy.model), prompts, top_p=0.01, min_tokens_to_keep=1, never_mask=special)
    tight.top_k = 50
    policy.sample(prompts, gen_cfg(top_k=50, max_new_tokens=5), [tight])
    assert loose.steps > 0 and loose.bound == 0
    assert tight.bound == tight.steps > 0                   # keeps one token: always fewer than 50


def test_a_note_names_mask_settings_under_which_nlpo_starts_out_as_ppo():
    from grue.train.rl.nlpo_mask import loose_mask_note

    note = loose_mask_note(top_k=50, min_tokens_to_keep=100)     # the paper's IMDB NLPO settings
    assert "min_tokens_to_keep=100" in note and "top_k=50" in note
    assert loose_mask_note(top_k=50, min_tokens_to_keep=10) is None
    assert loose_mask_note(top_k=0, min_tokens_to_keep=100) is None  # no top-k: every token is a candidate


def test_a_checkpoints_own_generation_settings_do_not_reach_the_sampler(tiny_tokenizer):
    """A checkpoint whose generation_config.json sets a repetition penalty: the rollout must still sample from exactly the distribution grue's config describes, so the recorded
    log-probs equal the recomputed ones (PPO's ratio is 1 before any update)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from grue.policy.causal import CausalPolicy

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tiny_tokenizer), n_positions=64, n_embd=32, n_layer=2,
                                       n_head=2, bos_token_id=1, eos_token_id=1, pad_token_id=0)).eval()
    model.generation_config.repetition_penalty = 3.0
    policy = CausalPolicy(model, tiny_tokenizer, max_prompt_length=16)
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(top_k=0, max_new_tokens=12))
    new_logp, _, _ = policy.log_probs(policy.model, rollout)
    assert torch.allclose(new_logp * rollout.valid, rollout.logp, atol=LOGP_ATOL)
    assert policy.model.generation_config.repetition_penalty is None


def test_the_masking_model_gets_its_cache_under_the_name_its_forward_takes(tiny_causal_policy):
    """transformers renamed `past_key_values` to `cache` within 5.x; a model given the other name
    would silently run without its cache, so the processor reads the name from the signature."""
    from grue.policy.mask_processor import cache_argument

    class OldStyle(torch.nn.Module):
        def forward(self, input_ids=None, past_key_values=None, **kwargs):
            return input_ids

    class NewStyle(torch.nn.Module):
        def forward(self, input_ids=None, cache=None, **kwargs):
            return input_ids

    assert cache_argument(OldStyle()) == "past_key_values" and cache_argument(NewStyle()) == "cache"
    import inspect
    assert cache_argument(tiny_causal_policy.model) in inspect.signature(tiny_causal_policy.model.forward).parameters


def test_rollout_rounds_with_prompts_of_different_widths_concatenate_without_changing_log_probs(tiny_causal_policy):
    """An iteration's later rounds encode their own prompts (another padded width); padding them to a
    common width must leave every episode's log-probs as they were sampled."""
    from grue.train.rl.rollout import concat_rollouts

    policy = tiny_causal_policy
    torch.manual_seed(4)
    short = policy.sample(policy.encode(["I"]), gen_cfg(max_new_tokens=4))
    long = policy.sample(policy.encode(["A tedious, boring mess that wastes", "dogs"]), gen_cfg(max_new_tokens=6))
    assert short.prompts.input_ids.shape[1] < long.prompts.input_ids.shape[1]
    both = concat_rollouts([short, long], policy.tokenizer.pad_token_id, policy.padding_side)
    new_logp, _, _ = policy.log_probs(policy.model, both)
    assert torch.allclose(new_logp * both.valid, both.logp, atol=LOGP_ATOL)
    assert torch.equal(both.logp[0, :4], short.logp[0]) and (both.valid[0, 4:] == 0).all()


def test_the_head_at_the_action_positions_only_gives_the_full_passs_logits(tiny_causal_policy):
    """forward() asks the LM for logits at its last t + 1 positions (logits_to_keep); they equal the
    full pass's logits at the states that predict each action, and the critic trunk (no such
    argument) still gets its hidden states."""
    from grue.policy import causal

    policy = tiny_causal_policy
    torch.manual_seed(2)
    rollout = policy.sample(policy.encode(PROMPTS), gen_cfg(max_new_tokens=5))
    kept, states = policy.forward(policy.model, rollout.prompts, rollout.actions, rollout.valid, hidden=True)
    assert causal._keeps_logits(policy.model) and not causal._keeps_logits(policy.model.transformer)
    attn = torch.cat([rollout.prompts.attention_mask, rollout.valid.long()], dim=1)
    ids = torch.cat([rollout.prompts.input_ids, rollout.actions], dim=1)
    full = policy.model(input_ids=ids, attention_mask=attn, position_ids=causal.position_ids(attn), use_cache=False)
    p, t = rollout.prompts.input_ids.shape[1], rollout.actions.shape[1]
    assert kept.shape == (len(PROMPTS), t, policy.model.config.vocab_size)
    assert torch.allclose(kept, full.logits[:, p - 1:p + t - 1], atol=1e-5)
    _, trunk_states = policy.forward(policy.model.transformer, rollout.prompts, rollout.actions, rollout.valid,
                                     hidden=True)
    assert torch.allclose(trunk_states, states, atol=1e-5)


def test_action_log_probs_equal_the_gathered_log_softmax():
    from grue.policy.masking import action_log_probs, gather

    torch.manual_seed(3)
    logits = torch.randn(3, 7, 50) * 4
    logits[0, 0, 5:] = float("-inf")               # a processed score row: most tokens filtered out
    actions = torch.randint(0, 5, (3, 7))
    expected = gather(torch.log_softmax(logits, -1), actions)
    assert torch.allclose(action_log_probs(logits, actions), expected, atol=1e-5)
