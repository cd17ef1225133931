"""A run shows and accepts the config groups it reads (issues 42 and 45): another algorithm's setting on the
command line is refused with the groups named (it looked set and changed nothing), dropped from a sweep's cells,
a warm start's first run and the demo's zero-shot run that do not read it, and left out of `grue config` and what a run records, whose
hash a board re-resolves from the shorter config unchanged."""
from __future__ import annotations

import pytest
from omegaconf import OmegaConf
from typer.testing import CliRunner

from cli import app
from grue.config import ConfigError, config_hash, load_config
from grue.config.read_groups import algorithm_groups, read_groups, shown_config, without_unread

MINI = ["task=imdb", "profile=mini"]


@pytest.mark.parametrize("algo, setting, group", [
    ("ppo", "grpo.group_size=8", "grpo"),
    ("ppo", "dpo.beta=0.2", "dpo"),
    ("grpo", "nlpo.top_p=0.5", "nlpo"),
    ("zero_shot", "ppo.learning_rate=0.5", "ppo"),
    ("supervised", "kl.target=null", "kl"),
])
def test_a_setting_of_a_group_the_algorithm_does_not_read_is_refused(algo, setting, group):
    with pytest.raises(ConfigError) as err:
        load_config([*MINI, f"algo={algo}", setting], refuse_unread=True)
    message = str(err.value)
    assert message.startswith(f"{setting.split('=')[0]}: algo={algo} does not read the {group!r} group")
    assert "choose an algorithm that reads it" in message


def test_the_command_line_refuses_it_with_one_error_line():
    result = CliRunner().invoke(app, ["config", *MINI, "algo=ppo", "grpo.group_size=8"])
    assert result.exit_code == 2 and result.output.startswith("error: grpo.group_size: algo=ppo does not read"), \
        result.output
    plan = CliRunner().invoke(app, ["plan", *MINI, "algo=zero_shot", "ppo.batch_size=8"])
    assert plan.exit_code == 2 and "does not read the 'ppo' group" in plan.output, plan.output


def test_a_shared_list_of_settings_loads_for_every_algorithm_unread_settings_ignored():
    """A study script or a test fixture gives one list to several algorithms (as a sweep does); the library
    call does not refuse it, and what a run does not read does not touch its identity."""
    shared = [*MINI, "ppo.learning_rate=0.5", "supervised.epochs=1"]
    assert config_hash(load_config([*shared, "algo=zero_shot"])) == config_hash(load_config([*MINI, "algo=zero_shot"]))


def test_settings_of_groups_the_algorithm_reads_are_accepted():
    cfg = load_config([*MINI, "algo=grpo", "grpo.group_size=8", "ppo.total_steps=64", "kl.init_coef=0.1",
                       "model.dtype=float32"], refuse_unread=True)
    assert cfg.grpo.group_size == 8


def test_the_printed_config_holds_the_groups_the_run_reads():
    out = CliRunner().invoke(app, ["config", *MINI, "algo=grpo"]).output
    groups = {line.split(":")[0] for line in out.splitlines() if line and not line.startswith((" ", "#"))}
    assert {"grpo", "ppo", "kl", "rollout", "model", "eval"} <= groups
    assert not groups & {"dpo", "rloo", "nlpo", "supervised", "best_of_n", "reinforce_pp"}
    every = CliRunner().invoke(app, ["config", *MINI, "algo=grpo", "--all-groups"]).output
    assert "\ndpo:" in every and "\nrloo:" in every


def test_the_recorded_config_resolves_to_the_same_hash():
    """A board re-resolves a bundle's config.yaml (grue/board/submit/verify.py): the groups left out take their
    defaults, which the hash does not cover."""
    from grue.board.submit.verify import resolve_config

    for algo in ("zero_shot", "ppo", "grpo", "best_of_n", "supervised_nlpo"):
        cfg = load_config([*MINI, f"algo={algo}"])
        shown = shown_config(OmegaConf.to_container(cfg, resolve=True), algo)
        assert not set(shown) & (algorithm_groups() - read_groups(algo))
        resolved, why = resolve_config(shown)
        assert why == [] and config_hash(resolved) == config_hash(cfg), algo


def test_a_sweep_drops_another_algorithms_setting_from_its_cells():
    from grue.sweep.grid import expand

    cells = {cell.cfg.algo: cell for cell in expand([*MINI, "algo=ppo,grpo", "grpo.group_size=8"])}
    assert "grpo.group_size=8" in cells["grpo"].args and cells["grpo"].cfg.grpo.group_size == 8
    assert "grpo.group_size=8" not in cells["ppo"].args


def test_a_warm_start_drops_the_settings_its_first_run_does_not_read():
    from grue.config.read_groups import args_as_algorithm

    args = args_as_algorithm([*MINI, "algo=supervised_ppo", "ppo.total_steps=64", "supervised.epochs=1"], "supervised")
    assert args == [*MINI, "supervised.epochs=1", "algo=supervised"]
    assert without_unread(["ppo.total_steps=64", "seed=1"], "zero_shot") == ["seed=1"]


def test_grue_run_says_which_settings_it_does_not_read_and_goes_on():
    """A run's command line is often shared by a loop over algorithms: a note, not a refusal (the DPO run here
    then stops at its own preflight, before any asset is built)."""
    result = CliRunner().invoke(app, ["run", *MINI, "algo=dpo", "dpo.comparisons=null", "ppo.learning_rate=0.5"])
    assert "note: algo=dpo does not read ppo.learning_rate" in result.output, result.output
    assert "dpo.comparisons" in result.output and result.exit_code == 2, result.output


def test_dpo_accepts_rollout_settings_where_its_auto_comparisons_read_them(tmp_path):
    """dpo.comparisons=auto samples its candidates with the task's rollout decoding (grue/train/offline/
    auto_recipe.py): a rollout setting is then read (through the recipe's digest, so the hash moves) and
    accepted; with a hand-made file nothing reads it, and it is refused naming the file."""
    auto = load_config([*MINI, "algo=dpo", "rollout.top_k=7"], refuse_unread=True)
    plain = load_config([*MINI, "algo=dpo"], refuse_unread=True)
    assert auto.dpo.comparisons == "auto" and auto.rollout.top_k == 7
    assert auto.dpo.comparisons_sha256 != plain.dpo.comparisons_sha256 and config_hash(auto) != config_hash(plain)
    assert load_config([*MINI, "algo=supervised_dpo", "rollout.top_k=7"], refuse_unread=True).rollout.top_k == 7
    hand = tmp_path / "labels.jsonl"
    hand.write_text("")
    with pytest.raises(ConfigError) as err:
        load_config([*MINI, "algo=dpo", f"dpo.comparisons={hand}", "rollout.top_k=7"], refuse_unread=True)
    assert str(err.value).startswith("rollout.top_k: algo=dpo reads the 'rollout' group only to make its inputs, "
                                     f"and dpo.comparisons={hand} is a file, not auto"), str(err.value)
    # a group DPO reads through nothing stays refused as before
    with pytest.raises(ConfigError, match="does not read the 'ppo' group"):
        load_config([*MINI, "algo=dpo", "ppo.total_steps=64"], refuse_unread=True)
    # and the rollout group stays out of DPO's hashed groups: hand-made files keep their hashes
    from grue.train.registry import get_algorithm
    assert "rollout" not in get_algorithm("dpo").hashed_groups and "rollout" in read_groups("dpo")
