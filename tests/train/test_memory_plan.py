"""`grue plan`: the peak-memory estimate counts the model exactly and moves the way each lever moves it."""
from grue.commands.plan import estimate, model_facts
from grue.config import load_config


def _cfg(tiny_model_dirs, *extra):
    return load_config(["task=imdb", "profile=mini", "algo=ppo", f"model.policy={tiny_model_dirs.policy}",
                        "model.value_model=separate", *extra])


def _line(plan, what):
    return next(size for name, size, _ in plan.lines if name.startswith(what))


def test_the_model_is_counted_from_its_config_without_weights(tiny_model_dirs):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dirs.policy)
    facts = model_facts(_cfg(tiny_model_dirs))
    assert facts.params == sum(p.numel() for p in model.parameters())
    assert (facts.layers, facts.hidden, facts.vocab) == (2, 32, model.config.vocab_size)
    lora = model_facts(_cfg(tiny_model_dirs, "model.lora.rank=4"))
    # GPT-2 preset: c_attn (32 -> 96), attn c_proj (32 -> 32), c_fc (32 -> 128), mlp c_proj (128 -> 32), per layer
    assert lora.lora == 2 * 4 * ((32 + 96) + (32 + 32) + (32 + 128) + (128 + 32))


def test_each_lever_lowers_what_it_should(tiny_model_dirs):
    full = estimate(_cfg(tiny_model_dirs))
    lora = estimate(_cfg(tiny_model_dirs, "model.lora.rank=4"))
    both = estimate(_cfg(tiny_model_dirs, "model.lora.rank=4", "model.gradient_checkpointing=true"))
    mixed = estimate(_cfg(tiny_model_dirs, "model.mixed_precision=bf16"))
    assert _line(lora, "reference") == 0 < _line(full, "reference")
    assert _line(lora, "policy gradients") < _line(full, "policy gradients") / 10
    assert _line(both, "update activations") < _line(lora, "update activations")
    assert _line(mixed, "update activations") < _line(full, "update activations")
    assert _line(mixed, "autocast weight copies") > 0
    assert both.peak < lora.peak < full.peak
    sharded = estimate(_cfg(tiny_model_dirs, "num_processes=4", "shard=full"))
    assert _line(sharded, "policy weights") * 4 == _line(full, "policy weights")


def test_nlpo_counts_its_masking_model_and_the_command_prints_the_peak(tiny_model_dirs, capsys):
    from grue.commands.plan import plan_command

    nlpo = estimate(load_config(["task=imdb", "profile=mini", "algo=nlpo", f"model.policy={tiny_model_dirs.policy}"]))
    assert _line(nlpo, "NLPO masking model") > 0 and _line(nlpo, "rollout action masks") > 0
    plan_command(["task=imdb", "profile=mini", "algo=ppo", f"model.policy={tiny_model_dirs.policy}", "model.lora.rank=4"])
    out = capsys.readouterr().out
    assert "LoRA rank 4" in out and "estimated peak per device" in out
