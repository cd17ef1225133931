"""LoRA policies (grue.policy.lora): the reference is the base with its adapters disabled, NLPO's masking
model a frozen copy of the adapter weights, the critic a model of its own; checkpoints hold adapters,
the final model directory the merged model and the adapter."""
from types import SimpleNamespace

import pytest
import torch
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.policy import lora
from grue.policy.load import build_value, frozen_copy, load_policy, reference_model
from grue.train.checkpoint import load_trainable_state, trainable_state
from tests.policy.rollout_settings import rollout_settings

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"]
RANK4 = SimpleNamespace(rank=4, alpha=None, dropout=0.0, target_modules=None)


def _policy(kind, tiny_causal_policy, tiny_seq2seq_policy):
    return tiny_causal_policy if kind == "causal" else tiny_seq2seq_policy


def _logits(policy, model, rollout):
    with torch.no_grad():
        return policy.forward(model, rollout.prompts, rollout.actions, rollout.valid)[0]


def _move_adapters(model, scale=0.3):
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.normal_(0.0, scale)


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_the_reference_is_the_base_with_adapters_disabled_and_reproduces_its_logits_exactly(
        kind, tiny_causal_policy, tiny_seq2seq_policy):
    policy = _policy(kind, tiny_causal_policy, tiny_seq2seq_policy)
    torch.manual_seed(0)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(max_new_tokens=6))
    base = _logits(policy, policy.model, rollout)
    with torch.no_grad():  # as the rollout computes pi_0's log-probs (autograd can pick other attention kernels)
        base_raw = policy.raw_log_probs(policy.model, rollout)
    lora.add_adapters(policy.model, RANK4)
    assert torch.equal(_logits(policy, policy.model, rollout), base)  # fresh adapters (B = 0) change nothing
    _move_adapters(policy.model)
    ref = reference_model(policy.model)
    assert not torch.allclose(_logits(policy, policy.model, rollout), base, atol=1e-3)  # the adapters act
    assert torch.equal(_logits(policy, ref, rollout), base)                            # ... and are off in pi_0
    with torch.no_grad():
        assert torch.equal(policy.raw_log_probs(ref, rollout), base_raw)
    assert list(ref.parameters()) == [] and ref.state_dict() == {}  # no copy of anything
    assert all(p.requires_grad for n, p in policy.model.named_parameters() if lora.is_adapter_key(n))


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_the_masking_model_is_a_frozen_copy_of_the_adapter_weights_refreshed_from_the_policy(
        kind, tiny_causal_policy, tiny_seq2seq_policy):
    policy = _policy(kind, tiny_causal_policy, tiny_seq2seq_policy)
    lora.add_adapters(policy.model, RANK4)
    _move_adapters(policy.model)
    torch.manual_seed(1)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(max_new_tokens=6))
    mask_model = frozen_copy(policy.model)
    at_copy = _logits(policy, policy.model, rollout)
    assert set(mask_model.state_dict()) == {k.replace(".", "__") for k in lora.adapter_state(policy.model)}
    _move_adapters(policy.model, 0.5)  # the policy trains on; pi_psi stays
    assert torch.equal(_logits(policy, mask_model, rollout), at_copy)
    assert not torch.allclose(_logits(policy, policy.model, rollout), at_copy, atol=1e-3)
    mask_model.load_state_dict(policy.model.state_dict())  # NLPO's refresh
    assert torch.equal(_logits(policy, mask_model, rollout), _logits(policy, policy.model, rollout))
    saved = mask_model.state_dict()  # a checkpoint round trip of the masking model alone
    _move_adapters(policy.model, 0.1)
    again = frozen_copy(policy.model)
    again.load_state_dict(saved)
    assert torch.equal(_logits(policy, again, rollout), _logits(policy, mask_model, rollout))


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_a_separate_critic_copies_the_base_trunk_without_adapters_and_trains_it_whole(
        kind, tiny_causal_policy, tiny_seq2seq_policy):
    policy = _policy(kind, tiny_causal_policy, tiny_seq2seq_policy)
    lora.add_adapters(policy.model, RANK4)
    cfg = SimpleNamespace(model=SimpleNamespace(value_model="separate", gradient_checkpointing=False))
    value = build_value(cfg, policy)
    assert not lora.lora_layers(value) and all(p.requires_grad for p in value.parameters())
    trunk_names = {n for n, _ in value.trunk.named_parameters()}
    base = lora.base_state_dict(policy.model)
    prefix = "" if kind == "seq2seq" else "transformer."
    for name in trunk_names:
        assert torch.equal(value.trunk.state_dict()[name], base[prefix + name]), name
    shared = build_value(SimpleNamespace(model=SimpleNamespace(value_model="shared")), policy)
    torch.manual_seed(2)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(max_new_tokens=5))
    values = shared.values(policy, rollout)  # a head on the adapted trunk: its gradient reaches the adapters
    values.sum().backward()
    assert all(p.grad is not None for n, p in policy.model.named_parameters() if "lora_A" in n)


def test_a_lora_critic_freezes_its_own_copy_of_the_base_and_trains_adapters_of_its_own(tiny_causal_policy):
    policy = tiny_causal_policy
    lora.add_adapters(policy.model, RANK4)
    _move_adapters(policy.model)
    settings = SimpleNamespace(**vars(RANK4), critic="lora")
    value = build_value(SimpleNamespace(model=SimpleNamespace(value_model="separate", lora=settings,
                                                              gradient_checkpointing=False)), policy)
    trained = {n for n, p in value.named_parameters() if p.requires_grad}
    assert trained and all(lora.is_adapter_key(n) or n.startswith("head.") for n in trained)
    assert any(n.startswith("head.") for n in trained)
    critic_adapters = [p for n, p in value.named_parameters() if "lora_B" in n]
    assert critic_adapters and all(not p.any() for p in critic_adapters)  # fresh, not the policy's


def test_checkpoint_state_is_the_adapters_and_must_match(tiny_causal_policy):
    model = tiny_causal_policy.model
    lora.add_adapters(model, RANK4)
    _move_adapters(model)
    state = {k: v.clone() for k, v in trainable_state(model).items()}
    assert state and all(lora.is_adapter_key(k) for k in state)
    _move_adapters(model, 0.5)
    load_trainable_state(model, state)
    assert all(torch.equal(v, state[k]) for k, v in lora.adapter_state(model).items())
    with pytest.raises(RuntimeError, match="other model.lora settings"):
        load_trainable_state(model, {k: v for k, v in list(state.items())[1:]})


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_the_final_model_directory_holds_the_merged_model_and_the_adapter(kind, tiny_causal_policy,
                                                                          tiny_seq2seq_policy, tmp_path):
    """Plain transformers loads the merged model; peft loads the adapter onto the base; load_policy takes
    either (grue eval, the human study and the label commands all load through it)."""
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM

    policy = _policy(kind, tiny_causal_policy, tiny_seq2seq_policy)
    auto = AutoModelForSeq2SeqLM if policy.is_seq2seq else AutoModelForCausalLM
    policy.model.save_pretrained(tmp_path / "base")
    policy.tokenizer.save_pretrained(tmp_path / "base")
    lora.add_adapters(policy.model, RANK4, base_ref=str(tmp_path / "base"))
    _move_adapters(policy.model)
    torch.manual_seed(3)
    rollout = policy.sample(policy.encode(PROMPTS), rollout_settings(max_new_tokens=6))
    trained = _logits(policy, policy.model, rollout)
    lora.save_merged(policy.model, tmp_path / "model")
    policy.tokenizer.save_pretrained(tmp_path / "model")
    merged = auto.from_pretrained(tmp_path / "model").eval()
    assert not lora.lora_layers(merged)
    assert torch.allclose(_logits(policy, merged, rollout), trained, atol=1e-5)
    adapted = PeftModel.from_pretrained(auto.from_pretrained(tmp_path / "base"), str(tmp_path / "model" / "adapter"))
    assert torch.allclose(_logits(policy, adapted.eval(), rollout), trained, atol=1e-5)
    cfg = OmegaConf.merge(OmegaConf.structured(RunConfig), {"model": {"kind": "seq2seq" if policy.is_seq2seq else "causal",
                                                                      "max_prompt_length": 16}})
    for ref in (tmp_path / "model", tmp_path / "model" / "adapter"):
        loaded = load_policy(cfg, str(ref), "cpu")
        assert not lora.lora_layers(loaded.model)
        assert torch.allclose(_logits(policy, loaded.model, rollout), trained, atol=1e-5)


def test_presets_per_backbone_and_refusals(tiny_causal_policy, tiny_seq2seq_policy):
    assert lora.target_modules(tiny_causal_policy.model, None) == ["c_attn", "c_proj", "c_fc"]
    assert "q" in lora.target_modules(tiny_seq2seq_policy.model, None)
    assert lora.target_modules(tiny_causal_policy.model, ["c_attn"]) == ["c_attn"]
    llama = SimpleNamespace(config=SimpleNamespace(model_type="llama"))  # SmolLM2
    assert lora.target_modules(llama, None)[:4] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    other = SimpleNamespace(config=SimpleNamespace(model_type="something-new"))
    assert lora.target_modules(other, None) == lora.ALL_LINEAR
    with pytest.raises(ValueError, match="dropout off"):
        lora.add_adapters(tiny_causal_policy.model, SimpleNamespace(rank=4, alpha=None, dropout=0.1, target_modules=None))
    from grue.config.load import ConfigError

    # a target naming no layer: grue's one-line config error listing the names that exist (peft's own
    # error would reach the user as a traceback)
    with pytest.raises(ConfigError, match=r"matched no layer of this T5ForConditionalGeneration; its linear layers "
                                          r"are named .*\bq\b.*\bwo\b"):
        lora.add_adapters(tiny_seq2seq_policy.model, SimpleNamespace(rank=4, alpha=8.0, dropout=0.0,
                                                                     target_modules=["no_such_layer"]))


def test_lora_with_sharded_parameters_is_refused_with_a_clear_error(tiny_model_dirs):
    from grue.config import load_config

    cfg = load_config(["task=imdb", "profile=mini", f"model.policy={tiny_model_dirs.policy}", "model.lora.rank=4",
                       "shard=full", "num_processes=2"])
    with pytest.raises(ValueError, match="accelerate=ddp"):
        load_policy(cfg, cfg.model.policy, "cpu")


def test_lora_settings_leave_every_existing_config_hash_alone():
    from grue.config import config_hash, load_config

    plain = load_config(["task=imdb", "profile=mini", "algo=ppo"])
    same = load_config(["task=imdb", "profile=mini", "algo=ppo", "model.lora.rank=0"])
    adapted = load_config(["task=imdb", "profile=mini", "algo=ppo", "model.lora.rank=8"])
    assert config_hash(plain) == config_hash(same) != config_hash(adapted)
    assert lora.lora_settings(plain) is None and lora.lora_settings(adapted).rank == 8
