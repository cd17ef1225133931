"""`grue plan`: the peak-memory estimate counts the model exactly and moves the way each lever moves it."""
from grue.commands.plan import estimate, model_facts
from grue.config import load_config


def _cfg(tiny_model_dirs, *extra):
    return load_config(["task=imdb", "profile=mini", "algo=ppo", f"model.policy={tiny_model_dirs.policy}",
                        "model.value_model=separate", *extra])


def _line(plan, what):
    return next(size for name, size, _ in plan.lines if name.startswith(what))


def test_the_estimate_leaves_torch_s_generator_as_it_was(tiny_model_dirs):
    """A run asks for the estimate before it trains, on its main process only: a draw here (peft initialises
    adapters from the global generator, even on the meta device) changed what a LoRA run sampled next and
    parted a two-process run's ranks."""
    import torch

    state = torch.get_rng_state()
    model_facts(_cfg(tiny_model_dirs, "model.lora.rank=4"))
    assert torch.equal(state, torch.get_rng_state())


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


def _offline(tiny_model_dirs, algo, *extra):
    return load_config(["task=imdb", "profile=mini", f"algo={algo}", f"model.policy={tiny_model_dirs.policy}", *extra])


# the tiny GPT-2's values autograd keeps per token per block: 8 x hidden 32 + 3 x key/value 32 + 4 x MLP 128
TINY_PER_TOKEN_BLOCK = 8 * 32 + 3 * 32 + 4 * 128


def test_a_dpo_pass_is_sized_by_its_answers_candidates_and_length(tiny_model_dirs, tmp_path):
    from tests.train.dpo_fixtures import praise_comparisons

    three = praise_comparisons(tmp_path / "three.jsonl", 20, k=3)
    base = ["dpo.batch_size=8", "dpo.max_length=6", "model.max_prompt_length=10", f"dpo.comparisons={three}",
            "dpo.micro_batch_size=null"]  # the mini preset's 4 unset: the whole step in one pass
    whole = estimate(_offline(tiny_model_dirs, "dpo", *base))
    micro = estimate(_offline(tiny_model_dirs, "dpo", *base, "dpo.micro_batch_size=2"))
    facts = model_facts(_offline(tiny_model_dirs, "dpo", *base))
    # by hand: 8 answers x 3 candidates (the file's widest), 10 + 6 tokens, (2 blocks + 1) x the block count, fp32
    assert _line(whole, "pass activations") == 8 * 3 * 16 * 3 * TINY_PER_TOKEN_BLOCK * 4
    assert _line(micro, "pass activations") * 4 == _line(whole, "pass activations")
    # the head at the 6 action states and the last one, 3 float32 copies
    assert _line(whole, "vocabulary logits") == 3 * 8 * 3 * 7 * facts.vocab * 4
    assert _line(whole, "reference pi_ref") == facts.params * 4
    assert _line(whole, "policy gradients + RMSprop") == 2 * facts.params * 4
    adamw = estimate(_offline(tiny_model_dirs, "dpo", *base, "dpo.optimizer=adamw"))
    assert _line(adamw, "policy gradients + AdamW") == 3 * facts.params * 4
    auto = estimate(_offline(tiny_model_dirs, "dpo", "dpo.batch_size=8", "dpo.max_length=6",
                             "model.max_prompt_length=10", "dpo.comparisons=auto", "reward.k=5",
                             "dpo.micro_batch_size=null"))
    assert _line(auto, "pass activations") == 8 * 5 * 16 * 3 * TINY_PER_TOKEN_BLOCK * 4  # reward.k: the made file's


def test_supervised_counts_its_batch_and_whole_logits_and_zero_shot_only_the_weights(tiny_model_dirs, capsys):
    from grue.commands.plan import plan_command

    sup = estimate(_offline(tiny_model_dirs, "supervised", "supervised.batch_size=4", "supervised.max_length=6",
                            "model.max_prompt_length=10"))
    facts = model_facts(_offline(tiny_model_dirs, "supervised"))
    assert _line(sup, "pass activations") == 4 * 16 * 3 * TINY_PER_TOKEN_BLOCK * 4
    # a decoder-only model's own loss: logits at every prompt and target position
    assert _line(sup, "vocabulary logits") == 3 * 4 * 16 * facts.vocab * 4
    assert not any(name.startswith("reference") for name, _, _ in sup.lines)
    zero = estimate(_offline(tiny_model_dirs, "zero_shot"))
    assert [name for name, _, _ in zero.lines] == ["policy weights", "process"]
    plan_command(["task=imdb", "profile=mini", "algo=dpo", f"model.policy={tiny_model_dirs.policy}",
                  "dpo.comparisons=auto", "dpo.micro_batch_size=2"])
    assert "2 answers x" in capsys.readouterr().out
