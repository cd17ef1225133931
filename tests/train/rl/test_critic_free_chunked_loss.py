"""The critic-free update's loss (grue/train/rl/critic_free.py) runs through the chunked log-probs
(grue.policy.logprobs) and equals the whole [B, T, V] computation it replaced, with its gradients: on
masked (top-k, temperature 0.7) and unmasked rollouts, causal and seq2seq, with and without GRPO's
k3 KL term and an entropy bonus.

The whole-tensor side is written here from torch primitives: log_softmax(logits / T) with disallowed
tokens at -inf for the ratio and the entropy, log_softmax(logits) for the KL. Tolerances: loss within
1e-6 absolute (each position's log-softmax is the same operations; only the head's matrix product
runs on fewer rows), gradients within 1e-5 of the largest gradient entry (float32 sums in another order).
"""
from contextlib import contextmanager
from types import SimpleNamespace

import pytest
import torch

from grue.train.rl.critic_free_config import LossOptions
from grue.policy import logprobs
from grue.train.rl.critic_free import CriticFreeTrainer
from grue.train.rl.policy_gradient import k3_kl, weighted_clipped_loss
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]
LOSS_ATOL = 1e-6
GRAD_RTOL = 1e-5
CHUNK = 2  # positions per chunk: several chunks per rollout, so the chunking is exercised


def _minibatch(policy, masked: bool):
    torch.manual_seed(3)
    settings = rollout_settings(top_k=5, temperature=0.7, max_new_tokens=7) if masked else rollout_settings(max_new_tokens=7)
    rollout = policy.sample(policy.encode(PROMPTS), settings)
    assert (rollout.action_mask is not None) == masked
    noise = torch.Generator().manual_seed(4)
    valid = rollout.valid
    # old log-probs moved off the current ones, so ratios differ from 1 and some are clipped
    rollout.logp = rollout.logp + 0.3 * torch.randn(valid.shape, generator=noise) * valid
    ref_logp = rollout.raw_logp + 0.2 * torch.randn(valid.shape, generator=noise) * valid
    advantages = torch.randn(valid.shape, generator=noise) * valid
    token_weight = torch.rand(valid.shape[0], generator=noise) + 0.5
    selected = valid.clone()
    selected[0, :2] = 0  # a minibatch that leaves some transitions out
    return SimpleNamespace(rollout=rollout, ref_logp=ref_logp, advantages=advantages, token_weight=token_weight), selected


def _whole_tensor_loss(policy, mb, selected, clip_range, ent_coef, kl_coef):
    """The update as it was before chunking: the [B, T, V] logits and log-softmax."""
    rollout = mb.rollout
    logits, _ = policy.forward(policy.model, rollout.prompts, rollout.actions, rollout.valid)
    scaled = logits.float() / rollout.temperature
    if rollout.action_mask is not None:
        scaled = scaled.masked_fill(~rollout.action_mask, float("-inf"))
    logp_all = torch.log_softmax(scaled, dim=-1)
    new_logp = logp_all.gather(-1, rollout.actions.unsqueeze(-1)).squeeze(-1)
    probs = logp_all.exp()
    token_entropy = -(probs * logp_all.masked_fill(probs == 0, 0.0)).sum(-1)
    raw = torch.log_softmax(logits.float(), dim=-1).gather(-1, rollout.actions.unsqueeze(-1)).squeeze(-1)
    kl = k3_kl(raw, mb.ref_logp) if kl_coef else None
    weights = selected * mb.token_weight[:, None]
    return weighted_clipped_loss(new_logp, rollout.logp, mb.advantages, weights, clip_range, token_entropy,
                                 ent_coef, kl, kl_coef).loss


def _trainer_stub(policy, clip_range, ent_coef, kl_coef, kl_temperature=None):
    """What CriticFreeTrainer._backward_minibatch reads of its trainer."""
    return SimpleNamespace(cfg=SimpleNamespace(ppo=SimpleNamespace(clip_range=clip_range, ent_coef=ent_coef),
                                               kl=SimpleNamespace(temperature=kl_temperature, estimator="k3")),
                           policy=policy, iteration=0, loss_kl_coef=lambda: kl_coef, clip_range=lambda: clip_range,
                           loss_options=LossOptions, clip_bounds=lambda: (clip_range, clip_range),
                           _backward=lambda loss, share: loss.backward(), _kl_loss_total=0.0, _kl_loss_steps=0)


@contextmanager
def vocabulary_sized_saves(vocab: int):
    """A list that receives, for every tensor autograd keeps for the backward pass inside the block, its
    element count when its last dimension is the vocabulary (else 0)."""
    saved = []

    def pack(tensor):
        saved.append(tensor.numel() if tensor.shape[-1:] == (vocab,) else 0)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield saved


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("ent_coef,kl_coef", [(0.0, 0.0), (0.01, 0.04), (0.0, 0.04)])  # the last: grpo_paper's
def test_critic_free_loss_and_gradients_equal_the_whole_tensor_ones(kind, masked, ent_coef, kl_coef, monkeypatch,
                                                                    tiny_causal_policy, tiny_seq2seq_policy):
    policy = tiny_causal_policy if kind == "causal" else tiny_seq2seq_policy
    mb, selected = _minibatch(policy, masked)
    params = [p for p in policy.model.parameters() if p.requires_grad]
    clip_range = 0.2

    whole = _whole_tensor_loss(policy, mb, selected, clip_range, ent_coef, kl_coef)
    expected_grads = torch.autograd.grad(whole, params, allow_unused=True)

    monkeypatch.setattr(logprobs, "chunk_length", lambda rows, width, budget=None: CHUNK)
    policy.model.zero_grad(set_to_none=True)
    trainer = _trainer_stub(policy, clip_range, ent_coef, kl_coef)
    V = policy.model.config.vocab_size
    B, T = mb.rollout.actions.shape
    with vocabulary_sized_saves(V) as saved:
        losses = CriticFreeTrainer._backward_minibatch(trainer, mb, selected, None)

    assert abs(losses.total.item() - whole.item()) <= LOSS_ATOL
    if kl_coef:
        assert trainer._kl_loss_total > 0  # the KL term is in the loss and nonzero
    grads = [p.grad for p in params]
    scale = max(g.abs().max().item() for g in expected_grads if g is not None)
    assert scale > 0
    for expected, got in zip(expected_grads, grads):
        if expected is None:
            assert got is None or not got.abs().any()
            continue
        assert (expected - got).abs().max().item() <= GRAD_RTOL * scale
    # nothing with more than one chunk's positions x vocabulary is kept for the backward pass
    assert max(saved, default=0) <= B * CHUNK * V


def test_the_whole_tensor_side_of_the_check_does_keep_vocabulary_sized_tensors(tiny_causal_policy):
    """The saved-tensor check above can fail: the computation it replaced keeps [B, T, V] tensors."""
    mb, selected = _minibatch(tiny_causal_policy, masked=True)
    V = tiny_causal_policy.model.config.vocab_size
    B, T = mb.rollout.actions.shape
    with vocabulary_sized_saves(V) as saved:
        _whole_tensor_loss(tiny_causal_policy, mb, selected, 0.2, 0.01, 0.04)
    assert max(saved) >= B * T * V
