"""Accelerate presets by name: every shipped YAML is one this accelerate's launcher accepts and reads
the way we mean it (checked without GPUs: parsed and validated, not run), and `num_processes=` /
`accelerate=` build the launch command without touching the run's identity."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grue.runtime.accelerate_configs import PRESETS, SHARDED, preset_path
from grue.config import ConfigError, config_hash, load_config
from grue.runtime.launch import launch_command

EXPECTED = {"ddp": ("MULTI_GPU", 1), "multi_node": ("MULTI_GPU", 2), "fsdp": ("FSDP", 1),
            "zero2": ("FSDP", 1), "zero3": ("FSDP", 1)}
STRATEGY = {"fsdp": "FULL_SHARD", "zero3": "FULL_SHARD", "zero2": "SHARD_GRAD_OP"}


@pytest.mark.parametrize("name", PRESETS)
def test_each_preset_is_a_valid_accelerate_launch_config(name):
    from accelerate.commands.config.config_args import ClusterConfig
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    path = preset_path(name)
    assert path.exists() and path.suffix == ".yaml"
    config = ClusterConfig.from_yaml_file(path)  # unknown keys are refused here
    assert (config.distributed_type.value, config.num_machines) == EXPECTED[name]
    args = launch_command_parser().parse_args(["--config_file", str(path), "--num_processes", "2", "-m", "grue",
                                               "run", "task=imdb"])
    _validate_launch_command(args)  # merges the file into the launcher's options, as `accelerate launch` does
    raw = yaml.safe_load(path.read_text())
    for group in ("fsdp_config", "deepspeed_config"):
        for key in raw.get(group, {}):
            assert hasattr(args, key), f"{name}: {group}.{key} is not an option of this accelerate's launcher"
    assert args.num_processes == 2 and args.module and args.training_script == "grue"
    if name in STRATEGY:
        assert args.fsdp_sharding_strategy == STRATEGY[name] and args.use_fsdp
        assert args.fsdp_cpu_ram_efficient_loading in (False, "false")  # every rank loads the weights itself


def test_presets_are_package_data():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    grue_data = next(line for line in pyproject.splitlines() if line.startswith('"grue" = ['))
    assert '"**/*.yaml"' in grue_data


def test_launch_commands_and_identity():
    base = ["task=imdb", "algo=ppo", "profile=mini"]
    torchrun = launch_command(load_config([*base, "num_processes=4"]), [*base, "num_processes=4"])
    assert torchrun[1:5] == ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node=4"]
    assert torchrun[5:] == ["-m", "grue", "run", *base, "num_processes=4"]  # each process runs the same command
    launched = launch_command(load_config([*base, "num_processes=8", "accelerate=ddp"]), base)
    assert launched[1:5] == ["-m", "accelerate.commands.launch", "--config_file", str(preset_path("ddp"))]
    assert "--num_processes" in launched and launched[launched.index("--num_processes") + 1] == "8"
    assert config_hash(load_config([*base, "num_processes=8", "accelerate=multi_node"])) == config_hash(load_config(base))
    with pytest.raises(ConfigError, match="accelerate: unknown value 'zero4'"):
        load_config([*base, "accelerate=zero4"])


@pytest.mark.parametrize("name", SHARDED)
def test_sharding_presets_select_the_matching_shard_mode(name):
    """What each preset means for grue's own sharding (grue.runtime.sharding), given or implied."""
    from grue.runtime.sharding import STRATEGY_MODES

    cfg = load_config(["task=imdb", "profile=mini", f"accelerate={name}", "num_processes=2"])
    assert cfg.shard == STRATEGY_MODES[STRATEGY[name]] == ("grad_op" if name == "zero2" else "full")
    assert load_config(["task=imdb", "profile=mini", f"accelerate={name}", "shard=grad_op"]).shard == "grad_op"


@pytest.mark.parametrize("plugin_args, mode", [
    ({"sharding_strategy": "FULL_SHARD"}, "full"), ({"sharding_strategy": "SHARD_GRAD_OP"}, "grad_op"),
    ({"reshard_after_forward": "SHARD_GRAD_OP"}, "grad_op"),
    ({"fsdp_version": 2, "reshard_after_forward": True}, "full"),
    ({"fsdp_version": 2, "reshard_after_forward": False}, "grad_op")])
def test_a_launch_with_an_fsdp_config_and_no_shard_key_shards_as_the_config_says(plugin_args, mode):
    """`accelerate launch --config_file <an FSDP config> -m grue run ...`: accelerate's own plugin decides."""
    from types import SimpleNamespace

    from accelerate.utils import FullyShardedDataParallelPlugin

    from grue.runtime.sharding import sharding_mode

    accelerator = SimpleNamespace(state=SimpleNamespace(fsdp_plugin=FullyShardedDataParallelPlugin(**plugin_args)))
    assert sharding_mode(load_config(["task=imdb", "profile=mini"]), accelerator) == mode
    assert sharding_mode(load_config(["task=imdb", "profile=mini", "shard=full"]), accelerator) == "full"
    assert sharding_mode(load_config(["task=imdb", "profile=mini"]), SimpleNamespace(state=None)) is None


def test_bad_shard_modes_are_refused_with_the_choices():
    with pytest.raises(ConfigError, match="shard: unknown value 'zero3'"):
        load_config(["task=imdb", "profile=mini", "shard=zero3"])


def test_accelerate_launch_runs_grue_as_a_module(tiny_imdb_args):
    """`accelerate launch -m grue run ...` (on this CPU machine accelerate starts one process)."""
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--cpu", "--num_processes", "1",
                           "-m", "grue", "run", *tiny_imdb_args, "algo=zero_shot"], env=env, capture_output=True,
                          text=True, timeout=300, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "results.json" in proc.stderr + proc.stdout
