"""nlpo.refresh: `paper` copies the policy into the masking model every `update_every` iterations
(Algorithm 1); `never` keeps the initial policy as masking model, as the reference code's sampler does."""
import pytest
import torch
from accelerate import Accelerator

from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.nlpo import NLPOTrainer
from tests.train.rl.test_learning import TokenCountReward, tiny_cfg


def same_weights(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


@pytest.mark.parametrize("refresh", ["paper", "never"])
def test_the_masking_model_is_refreshed_only_as_configured(tiny_causal_policy, refresh):
    cfg = tiny_cfg(nlpo={"update_every": 2, "refresh": refresh}, ppo={"steps_per_update": 32, "epochs": 1})
    policy = tiny_causal_policy
    initial = frozen_copy(policy.model)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in"])]
    trainer = NLPOTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                          samples, Accelerator(cpu=True))
    trainer.step()
    assert same_weights(trainer.mask_model, initial) and not same_weights(policy.model, initial)
    trainer.step()  # iteration 2 = update_every
    assert not same_weights(policy.model, initial)
    if refresh == "paper":
        assert same_weights(trainer.mask_model, policy.model)
    else:
        assert same_weights(trainer.mask_model, initial)
