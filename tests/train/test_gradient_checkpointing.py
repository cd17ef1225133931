"""model.gradient_checkpointing: the policy's and the critic's blocks recompute their activations in the
backward pass. The gradients are those of the plain passes (tolerance: 1e-6 of the largest gradient entry;
the recomputation runs the same operations on the same inputs, so they agree to float32 rounding or
exactly), and far fewer tensors are kept for the backward pass."""
import copy
from types import SimpleNamespace

import pytest
import torch

from grue.policy import lora
from grue.policy.load import build_value, checkpoint_blocks
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]
RTOL = 1e-6


def _loss(policy, value, rollout):
    logp, ent, states = policy.action_stats(policy.model, rollout, hidden=value.shared)
    values = value.values(policy, rollout, states)
    weights = torch.linspace(-1.0, 1.0, logp.numel()).view_as(logp)
    return ((logp * weights + 0.01 * ent + (values - 0.5) ** 2) * rollout.valid).sum()


def _gradients(policy, value, rollout):
    params = [p for m in (policy.model, value) for p in m.parameters() if p.requires_grad]
    return torch.autograd.grad(_loss(policy, value, rollout), params, allow_unused=True)


def _saved_elements(policy, value, rollout):
    total = [0]

    def pack(tensor):
        total[0] += tensor.numel()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        _loss(policy, value, rollout)
    return total[0]


@pytest.mark.parametrize("kind,value_model,adapters", [("causal", "separate", False), ("causal", "shared", True),
                                                       ("seq2seq", "separate", True), ("seq2seq", "shared", False)])
def test_checkpointed_and_plain_gradients_agree(kind, value_model, adapters, tiny_causal_policy,
                                                tiny_seq2seq_policy):
    policy = tiny_causal_policy if kind == "causal" else tiny_seq2seq_policy
    if adapters:
        lora.add_adapters(policy.model, SimpleNamespace(rank=4, alpha=None, dropout=0.0, target_modules=None))
    cfg = SimpleNamespace(model=SimpleNamespace(value_model=value_model, gradient_checkpointing=False))
    torch.manual_seed(0)
    value = build_value(cfg, policy)
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(top_k=5, max_new_tokens=7))
    plain = _gradients(policy, value, rollout)
    plain_saved = _saved_elements(policy, value, rollout)

    checkpointed_policy = copy.copy(policy)
    checkpointed_policy.model = copy.deepcopy(policy.model)
    checkpointed_value = copy.deepcopy(value)
    assert checkpoint_blocks(checkpointed_policy.model) > 0
    if not value.shared:
        assert checkpoint_blocks(checkpointed_value.trunk) > 0
    again = _gradients(checkpointed_policy, checkpointed_value, rollout)
    scale = max(g.abs().max().item() for g in plain if g is not None)
    assert scale > 0
    for a, b in zip(plain, again):
        assert (a is None) == (b is None)
        if a is not None:
            assert (a - b).abs().max().item() <= RTOL * scale
    assert _saved_elements(checkpointed_policy, checkpointed_value, rollout) < plain_saved / 2


def test_the_switch_checkpoints_policy_and_critic_and_a_copy_keeps_its_own_blocks(tiny_model_dirs):
    from grue.config import load_config
    from grue.policy.load import load_policy

    cfg = load_config(["task=imdb", "profile=mini", f"model.policy={tiny_model_dirs.policy}",
                       "model.gradient_checkpointing=true", "model.value_model=separate"])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    value = build_value(cfg, policy)
    for model in (policy.model, value.trunk):
        blocks = [m for m in model.modules() if "forward" in m.__dict__]
        assert blocks and all(m.__dict__["forward"].__self__ is m for m in blocks)  # bound to its own block
