"""LoRA and precision settings that pass field by field but cannot mean anything are refused when the config
loads, so `grue config`, `grue plan` and `grue run` refuse them alike, before any model (issue 45): LoRA
settings without a rank (no adapters are built at rank 0, the whole model trains) and fp16 on a device named
as a CPU (its loss scaling is CUDA's; the run refused it only after the assets were built)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli import app
from grue.config import ConfigError, load_config

BASE = ["task=imdb", "profile=mini", "algo=ppo"]


@pytest.mark.parametrize("setting, named", [
    (["model.lora.alpha=16"], "model.lora.alpha=16.0 without model.lora.rank"),
    (["model.lora.target_modules=[c_attn]"], "model.lora.target_modules=['c_attn'] without model.lora.rank"),
    (["model.lora.critic=lora", "model.value_model=separate"], "model.lora.critic=lora without model.lora.rank"),
    (["model.mixed_precision=fp16", "device=cpu"], "model.mixed_precision=fp16 with device=cpu"),
])
def test_settings_that_would_be_ignored_or_refused_later_are_refused_at_load(setting, named):
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        load_config([*BASE, *setting])


def test_the_same_settings_with_what_they_need_load():
    load_config([*BASE, "model.lora.rank=8", "model.lora.alpha=16", "model.lora.target_modules=[q_proj]"])
    load_config([*BASE, "model.lora.rank=8", "model.lora.critic=lora", "model.value_model=separate"])
    load_config([*BASE, "model.mixed_precision=fp16"])  # device=auto: decided on the machine that runs it
    load_config([*BASE, "model.mixed_precision=bf16", "device=cpu"])


@pytest.mark.parametrize("command", ["config", "plan"])
def test_config_and_plan_refuse_them_in_one_line(command):
    result = CliRunner().invoke(app, [command, *BASE, "model.lora.alpha=16"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.startswith("error: model.lora.alpha=16.0 without model.lora.rank"), result.output


@pytest.mark.parametrize("command", ["config", "plan"])
def test_config_and_plan_refuse_a_lora_layer_the_backbone_lacks(command):
    """Checked where the run's preflight checks it (issue 45), without loading the model: the packaged
    SmolLM2's family is known."""
    result = CliRunner().invoke(app, [command, "task=imdb", "profile=mini", "algo=ppo", "model.lora.rank=8",
                                      "model.lora.target_modules=[q_proj,bogus]"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.startswith("error: model.lora.target_modules=['q_proj', 'bogus']: bogus names no layer"), \
        result.output
