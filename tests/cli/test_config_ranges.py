"""Every numeric and choice field of the config schema has a range or set, and `grue run` refuses a value
outside it with one line naming the key, before anything is created (exit 2, no output directory)."""
from __future__ import annotations

import typing
from typing import Any

import pytest
from typer.testing import CliRunner

from cli import app
from grue.config.constraints import RULE_KEY, OneOf, Range, Registered, schema_fields
from grue.config.schema import RunConfig
from grue.policy.stop_strings import NonEmptyTexts

runner = CliRunner()

# String fields that name things the user chooses freely (paths, hub ids, prompt text): no set to check.
FREE_TEXT = {"model.policy", "model.supervised_init", "data.source", "data.config", "data.revision",
             "data.prompt_suffix", "reward.model", "reward.backbone", "output_dir", "critic.model", "critic.template",
             "critic.base_url", "critic.api_key_env",
             "model.lora.target_modules"}  # module names of the backbone: checked against its layers at load
UNCHECKED_TYPES = (bool, dict[str, Any])


def _base_type(kind: Any) -> Any:
    """`Optional[int]` -> int; other types as they are."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    return args[0] if typing.get_origin(kind) is typing.Union and len(args) == 1 else kind


def _outside(rule: Any, kind: Any) -> list[str]:
    """Values just outside `rule`, written as a user would type them."""
    if isinstance(rule, Range):
        number = int if kind is int else float
        bad = []
        if rule.low is not None:
            bad.append(number(rule.low) if rule.low_open else number(rule.low - 1))
        if rule.high is not None:
            bad.append(number(rule.high) if rule.high_open else number(rule.high + 1))
        return [str(b) for b in bad] + (["nan", "inf", "-inf"] if kind is float else [])
    if isinstance(rule, (OneOf, Registered)):
        return ["[no_such_name]" if typing.get_origin(kind) is list else "no_such_name"]
    if isinstance(rule, NonEmptyTexts):
        return ['[""]', '["x",""]']
    raise AssertionError(f"no out-of-range values known for rule {rule!r}: add them here")


FIELDS = list(schema_fields(RunConfig))
CASES = [(key, value) for key, item, kind in FIELDS if item.metadata.get(RULE_KEY) is not None
         for value in _outside(item.metadata[RULE_KEY], _base_type(kind))]


def test_every_numeric_and_choice_field_declares_its_range_or_set():
    unconstrained = [key for key, item, kind in FIELDS
                     if item.metadata.get(RULE_KEY) is None and key not in FREE_TEXT
                     and _base_type(kind) not in UNCHECKED_TYPES]
    assert unconstrained == []
    assert len(CASES) > 80  # the walk really covers the schema


@pytest.mark.parametrize("key, value", CASES, ids=[f"{k}={v}" for k, v in CASES])
def test_a_value_outside_its_range_is_refused_before_anything_is_created(tmp_path, key, value):
    out = tmp_path / "runs"
    result = runner.invoke(app, ["run", f"{key}={value}", f"output_dir={out}"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {key}: ") and result.output.count("\n") == 1, result.output
    assert not out.exists()


@pytest.mark.parametrize("args", [
    ["generation.top_p=1", "ppo.gamma=0", "ppo.gae_lambda=1", "kl.target=null", "kl.k_beta=0"],
    ["device=cuda:1", "threads=2", "accelerate=ddp", "shard=grad_op", "generation.top_k=0"],
    ["eval.eval_every=1", "data.max_val=1", "generation.length_penalty=-0.5", "rollout.min_new_tokens=4"],
])
def test_values_on_the_edge_of_their_range_are_accepted(args):
    result = runner.invoke(app, ["config", *args])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("arg, message", [
    ("ppo=3", "ppo is a group of settings: set one of its keys, e.g. ppo.learning_rate="),
    ("ppo.epochs=abc", "bad value for 'ppo.epochs' in the command line: Value 'abc'"),
    ("eval.metrics=bleu", "(eval.metrics is a list: eval.metrics=[a,b])"),
    ("eval.metric_options=3", "(eval.metric_options is a group: eval.metric_options.<name>=<value>)"),
    ("eval.metrics=[]", "eval.metrics: no metrics: name at least one"),
    ("output_dir=${nope}", "output_dir cannot be resolved: Interpolation key 'nope' not found"),
    ("seed=${model.policy}", "seed cannot be resolved"),
    ("generation.min_new_tokens=100", "generation.min_new_tokens (100) must not exceed generation.max_new_tokens"),
])
def test_misshapen_unresolvable_or_inconsistent_values_are_refused_on_one_line(arg, message):
    result = runner.invoke(app, ["config", arg])
    assert result.exit_code == 2 and message in result.output, result.output
    assert result.output.count("\n") == 1, result.output
