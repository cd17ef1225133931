"""The update's log-probs and entropy, computed a chunk of positions at a time from the vocabulary head's
inputs (grue.policy.logprobs), agree with the whole [B, T, V] computation, and so do their gradients.

Tolerances: values within 1e-6 absolute (each position's log-softmax is the same operations either way;
what differs is the head's matrix product run on fewer rows), gradients within 1e-5 of the largest
gradient entry (float32 sums over positions in another order)."""
import pytest
import torch

from grue.policy import logprobs
from grue.policy.masking import action_log_probs, entropy, gather, sampling_log_probs
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]
VALUE_ATOL = 1e-6
GRAD_RTOL = 1e-5


def _close_grads(a, b):
    scale = max(x.abs().max().item() for x in a if x is not None)
    for x, y in zip(a, b):
        assert (x - y).abs().max().item() <= GRAD_RTOL * scale


@pytest.mark.parametrize("chunk", [1, 3, None])
@pytest.mark.parametrize("masked,temperature", [(False, 1.0), (True, 0.7)])
def test_chunked_sampling_stats_equal_the_whole_tensor_ones_with_their_gradients(chunk, masked, temperature):
    torch.manual_seed(0)
    B, T, H, V = 3, 7, 8, 50
    states = torch.randn(B, T, H, requires_grad=True)
    head = torch.nn.Linear(H, V, bias=False)
    actions = torch.randint(0, V, (B, T))
    mask = None
    if masked:  # a top-k style mask that always allows the taken action
        mask = torch.rand(B, T, V) < 0.3
        mask.scatter_(-1, actions.unsqueeze(-1), True)
    logp_all = sampling_log_probs(head(states), mask, temperature)
    whole_logp, whole_ent = gather(logp_all, actions), entropy(logp_all)
    logp, ent = logprobs.sampling_stats(states, actions, mask, temperature, head, chunk=chunk)
    assert torch.allclose(logp, whole_logp, atol=VALUE_ATOL) and torch.allclose(ent, whole_ent, atol=VALUE_ATOL)
    weights = torch.randn(B, T)
    params = [states, head.weight]
    _close_grads(torch.autograd.grad(((whole_logp + 0.1 * whole_ent) * weights).sum(), params),
                 torch.autograd.grad(((logp + 0.1 * ent) * weights).sum(), params))


def test_chunked_raw_log_probs_equal_the_whole_tensor_ones_from_states_or_logits():
    torch.manual_seed(1)
    states, head = torch.randn(2, 9, 8), torch.nn.Linear(8, 40)
    actions = torch.randint(0, 40, (2, 9))
    expected = action_log_probs(head(states), actions)
    assert torch.allclose(logprobs.raw_log_probs(states, actions, head, chunk=2), expected, atol=VALUE_ATOL)
    assert torch.allclose(logprobs.raw_log_probs(head(states), actions, None, chunk=4), expected, atol=VALUE_ATOL)


def test_a_logged_entropy_carries_no_gradient():
    states = torch.randn(2, 4, 8, requires_grad=True)
    head = torch.nn.Linear(8, 30)
    logp, ent = logprobs.sampling_stats(states, torch.zeros(2, 4, dtype=torch.long), None, 1.0, head,
                                        entropy_grad=False, chunk=2)
    assert logp.requires_grad and not ent.requires_grad


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_policy_action_stats_equal_the_whole_log_softmax_on_a_masked_rollout(kind, tiny_causal_policy,
                                                                             tiny_seq2seq_policy):
    """On real rollouts (top-k mask, temperature): the policy's chunked pass gives the log-probs and entropy
    of log_probs()' whole [B, T, V] log-softmax, the recorded sampling log-probs, and the same gradients."""
    policy = tiny_causal_policy if kind == "causal" else tiny_seq2seq_policy
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(top_k=5, max_new_tokens=7, temperature=0.7))
    assert rollout.action_mask is not None
    whole_logp, logp_all, _ = policy.log_probs(policy.model, rollout)
    whole_ent = entropy(logp_all)
    logp, ent, _ = policy.action_stats(policy.model, rollout, chunk=2)
    assert torch.allclose(logp, whole_logp, atol=VALUE_ATOL) and torch.allclose(ent, whole_ent, atol=VALUE_ATOL)
    assert torch.allclose(logp * rollout.valid, rollout.logp, atol=1e-5)  # the ratio is 1 before any update
    params = [p for p in policy.model.parameters()]
    _close_grads(torch.autograd.grad(((whole_logp + 0.1 * whole_ent) * rollout.valid).sum(), params, allow_unused=True),
                 torch.autograd.grad(((logp + 0.1 * ent) * rollout.valid).sum(), params, allow_unused=True))
    raw = policy.raw_log_probs(policy.model, rollout, chunk=3)
    assert torch.allclose(raw * rollout.valid, rollout.raw_logp, atol=1e-5)


def test_no_tensor_of_vocabulary_size_per_position_is_kept_for_the_backward_pass(tiny_causal_policy):
    """What autograd keeps for the backward pass of the update's log-probs: the whole-tensor path keeps
    [B, T, V] tensors; the chunked path keeps nothing with more than one chunk's positions x V elements."""
    policy = tiny_causal_policy
    torch.manual_seed(2)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(max_new_tokens=8))
    B, T = rollout.actions.shape
    V = policy.model.config.vocab_size

    def largest_saved(run):
        sizes = []

        def pack(tensor):
            sizes.append(tensor.numel() if tensor.shape[-1:] == (V,) else 0)
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            run()
        return max(sizes)

    assert largest_saved(lambda: policy.log_probs(policy.model, rollout)) >= B * T * V
    assert largest_saved(lambda: policy.action_stats(policy.model, rollout, chunk=2)) <= B * 2 * V


def test_chunks_fit_the_element_budget():
    assert logprobs.chunk_length(rows=16, width=49152) * 16 * 49152 <= logprobs.CHUNK_ELEMENTS
    assert logprobs.chunk_length(rows=10_000, width=10_000) == 1  # never less than one position


def _graph_names(tensor):
    names, stack, seen = set(), [tensor.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.add(type(node).__name__)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return names


@pytest.mark.parametrize("chunk", [1, 3, None])
@pytest.mark.parametrize("masked,temperature,raw_temperature", [(False, 1.0, 1.0), (False, 0.7, 1.0),
                                                                (False, 0.7, 0.7), (True, 0.7, 1.0), (True, 1.0, 1.0)])
@pytest.mark.parametrize("bias", [False, True])
def test_a_linear_head_without_entropy_bonus_gives_the_whole_tensor_gradients(chunk, masked, temperature,
                                                                               raw_temperature, bias):
    """The update's usual case (an fp32 linear head, the entropy only logged, a KL term's raw log-probs beside the
    ratio's): the head's own backward (grue.policy.logprobs._LinearHeadStats) gives the values of the whole
    [B, T, V] computation and its gradients, for the states, the head's weight and its bias."""
    torch.manual_seed(5)
    B, T, H, V = 3, 7, 8, 50
    states = torch.randn(B, T, H, requires_grad=True)
    head = torch.nn.Linear(H, V, bias=bias)
    actions = torch.randint(0, V, (B, T))
    mask = None
    if masked:
        mask = torch.rand(B, T, V) < 0.3
        mask.scatter_(-1, actions.unsqueeze(-1), True)
    logits = head(states)
    whole_all = sampling_log_probs(logits, mask, temperature)
    whole_logp, whole_ent = gather(whole_all, actions), entropy(whole_all)
    whole_raw = gather(torch.log_softmax(logits / raw_temperature, dim=-1), actions)
    logp, ent, raw = logprobs.sampling_and_raw_stats(states, actions, mask, temperature, head, entropy_grad=False,
                                                     chunk=chunk, raw_temperature=raw_temperature)
    assert "_LinearHeadStatsBackward" in _graph_names(logp)
    assert not ent.requires_grad
    for got, expected in ((logp, whole_logp), (ent, whole_ent), (raw, whole_raw)):
        assert torch.allclose(got, expected, atol=VALUE_ATOL)
    a, b = torch.randn(B, T), torch.randn(B, T)
    params = [states, head.weight] + ([head.bias] if bias else [])
    # a PPO-clip-like use of the ratio's log-probs and a k3 KL on the raw ones
    ref = whole_raw.detach() + 0.1

    def loss(lp, rw):
        return (torch.exp(lp - whole_logp.detach()) * a).sum() + 0.04 * (torch.exp(ref - rw) - (ref - rw) * b).sum()

    _close_grads(torch.autograd.grad(loss(whole_logp, whole_raw), params, retain_graph=True),
                 torch.autograd.grad(loss(logp, raw), params, retain_graph=True))
    # the ratio's log-probs alone, and the KL's alone
    _close_grads(torch.autograd.grad((whole_logp * a).sum(), params, retain_graph=True),
                 torch.autograd.grad((logp * a).sum(), params, retain_graph=True))
    _close_grads(torch.autograd.grad((whole_raw * b).sum(), params), torch.autograd.grad((raw * b).sum(), params))


def test_a_linear_head_gives_no_gradient_where_an_action_lies_outside_its_mask():
    """Padding may hold a token the mask leaves out (its log-prob is -inf and its weight 0): the head's own
    backward gives finite gradients, as autograd's does, and the same ones."""
    torch.manual_seed(6)
    states = torch.randn(2, 4, 8, requires_grad=True)
    head = torch.nn.Linear(8, 30, bias=False)
    actions = torch.randint(0, 30, (2, 4))
    mask = torch.rand(2, 4, 30) < 0.5
    mask.scatter_(-1, actions.unsqueeze(-1), True)
    mask[1, 3, actions[1, 3]] = False  # the last position of row 1 is padding outside the mask
    weights = torch.ones(2, 4)
    weights[1, 3] = 0.0
    logp, _ = logprobs.sampling_stats(states, actions, mask, 1.0, head, entropy_grad=False, chunk=2)
    whole = gather(sampling_log_probs(head(states), mask, 1.0), actions)
    assert torch.isinf(logp[1, 3]) and torch.isinf(whole[1, 3])
    kept = weights > 0
    got = torch.autograd.grad(logp[kept].sum(), [states, head.weight])
    expected = torch.autograd.grad(whole[kept].sum(), [states, head.weight])
    assert all(torch.isfinite(g).all() for g in got)
    _close_grads(expected, got)
