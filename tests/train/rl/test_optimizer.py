"""The update's housekeeping changes nothing it computes: the fused AdamW agrees with torch's loop,
gradients are freed after each step, and an entropy that is only logged carries no gradient."""
import copy

import torch
from accelerate import Accelerator

from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.trainer import RLTrainer, build_optimizer

from test_learning import TokenCountReward, tiny_cfg


def _steps(model: torch.nn.Module, fused: bool, n: int = 3) -> torch.nn.Module:
    optimizer = build_optimizer([model], lr=1e-2, weight_decay=0.01, fused=fused)
    grads = torch.Generator().manual_seed(3)
    for _ in range(n):
        for param in model.parameters():
            param.grad = torch.randn(param.shape, generator=grads)
        optimizer.step()
    return model


def test_the_fused_adamw_agrees_with_the_per_tensor_loop(tiny_causal_policy):
    base = tiny_causal_policy.model
    looped, fused = _steps(copy.deepcopy(base), fused=False), _steps(copy.deepcopy(base), fused=True)
    moved = 0.0
    for (name, a), b, start in zip(looped.named_parameters(), fused.parameters(), base.parameters()):
        assert torch.allclose(a, b, rtol=1e-5, atol=1e-6), name
        moved = max(moved, (a - start).abs().max().item())
    assert moved > 1e-3  # the steps did move the weights, so agreement is not trivial


def _trainer(policy, ent_coef: float) -> RLTrainer:
    cfg = tiny_cfg(ppo={"ent_coef": ent_coef, "epochs": 1})
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    return RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                     samples, Accelerator(cpu=True))


def test_gradients_are_freed_after_each_step_and_a_logged_entropy_has_no_graph(tiny_causal_policy, monkeypatch):
    import grue.policy.logprobs as logprobs_module  # the update's entropy, a chunk of positions at a time

    tracked: list[bool] = []
    real_entropy = logprobs_module.entropy

    def recording_entropy(logp_all):
        out = real_entropy(logp_all)
        tracked.append(out.requires_grad)
        return out

    monkeypatch.setattr(logprobs_module, "entropy", recording_entropy)
    torch.manual_seed(0)
    trainer = _trainer(tiny_causal_policy, ent_coef=0.0)
    stats = trainer.step()
    assert stats["optimizer_steps"] > 0 and stats["loss/entropy"] > 0  # still logged
    assert tracked and not any(tracked)
    params = [p for group in trainer.optimizer.param_groups for p in group["params"]]
    assert all(p.grad is None for p in params)

    tracked.clear()
    _trainer(tiny_causal_policy, ent_coef=0.01).step()
    assert tracked and all(tracked)  # a real bonus keeps its gradient
