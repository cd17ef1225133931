"""Training precision comes from `model.dtype`, not from the dtype a checkpoint was saved in."""
import pytest
import torch
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.policy.load import load_policy


@pytest.fixture
def bf16_checkpoint(tiny_gpt2, tiny_tokenizer, tmp_path):
    model = type(tiny_gpt2.model)(tiny_gpt2.model.config)
    model.load_state_dict(tiny_gpt2.model.state_dict())
    model.to(torch.bfloat16).save_pretrained(tmp_path / "bf16")
    tiny_tokenizer.save_pretrained(tmp_path / "bf16")
    return str(tmp_path / "bf16")


@pytest.mark.parametrize("dtype,expected", [(None, torch.float32), ("checkpoint", torch.bfloat16),
                                            ("bfloat16", torch.bfloat16)])
def test_a_bf16_checkpoint_trains_in_float32_unless_asked_otherwise(bf16_checkpoint, dtype, expected):
    cfg = OmegaConf.structured(RunConfig)
    cfg.model.policy = bf16_checkpoint
    if dtype is not None:
        cfg.model.dtype = dtype
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    assert {p.dtype for p in policy.model.parameters()} == {expected}
