"""An algorithm and a metric from outside the package: registered by a plugin, run end to end, shown
on the board with their label and direction; no file under grue/ or tasks/ edited."""
from __future__ import annotations

import json
import math

import pytest

from grue.board.build import build_board
from grue.board.export import board_markdown
from grue.config import ConfigError, config_hash, load_config
from grue.data.sample import Sample
from grue.results.schema import validate_results
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


def test_a_plugin_algorithm_runs_end_to_end_and_is_on_the_board(toy_plugin, tiny_imdb_args):
    args = [*tiny_imdb_args, "algo=toy_reinforce", "toy.scale=2.0", "eval.metrics=[sentiment,toy_length]"]
    cfg = load_config(args)
    assert cfg.toy.scale == 2.0
    path = run(args)
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == []
    assert doc["algo"] == "toy_reinforce" and doc["reward"] == "sentiment"
    assert doc["higher_is_better"]["toy_length"] is False
    train_log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in train_log] == [1, 2, 3, 4, 5]
    assert all(r["loss/value"] == 0.0 for r in train_log)  # critic-free: no value loss at all
    markdown = board_markdown(build_board([path]))
    assert "Toy REINFORCE" in markdown and "toy_length ↓" in markdown


def test_a_plugin_config_group_is_checked_like_grue_s_own(toy_plugin, tiny_imdb_args):
    with pytest.raises(ConfigError, match="toy.scale"):
        load_config([*tiny_imdb_args, "algo=toy_reinforce", "toy.scale=-1"])
    with pytest.raises(ConfigError, match="unknown config key 'toy.scael'"):
        load_config([*tiny_imdb_args, "algo=toy_reinforce", "toy.scael=1"])


def test_a_plugin_group_changes_the_hash_only_of_runs_that_read_it(toy_plugin, tiny_imdb_args):
    base = [*tiny_imdb_args, "algo=toy_reinforce"]
    assert config_hash(load_config(base)) != config_hash(load_config([*base, "toy.scale=3"]))
    ppo = [*tiny_imdb_args, "algo=ppo"]
    assert config_hash(load_config(ppo)) == config_hash(load_config([*ppo, "toy.scale=3"]))


def test_a_lower_is_better_plugin_metric_as_a_reward_pays_more_for_the_lower_value(toy_plugin, tiny_imdb_args):
    from grue.rewards.registry import build_reward

    reward = build_reward(load_config([*tiny_imdb_args, "algo=ppo", "reward=toy_length"]))
    samples = [Sample("a", "p", ("r",)), Sample("b", "p", ("r",))]
    short, long = reward(samples, ["ok", "a much longer answer"])
    assert short == -2.0 and long == -20.0  # the shorter generation earns more: the length is minimised


def test_an_rl_run_on_a_lower_is_better_plugin_reward_is_paid_its_negation(toy_plugin, tiny_imdb_args):
    path = run([*tiny_imdb_args, "algo=ppo", "reward=toy_length", "eval.metrics=[toy_length]"])
    train_log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert all(r["reward_mean"] < 0 for r in train_log)  # -length, never +length
    predictions = [json.loads(line) for line in (path / "predictions" / "test.jsonl").read_text().splitlines()]
    mean_length = sum(len(p["generation"]) for p in predictions) / len(predictions)
    assert math.isclose(json.loads((path / "results.json").read_text())["metrics"]["test"]["toy_length"],
                        mean_length)


def test_grue_algos_lists_built_in_and_plugin_algorithms(toy_plugin):
    from typer.testing import CliRunner

    from cli import app

    result = CliRunner().invoke(app, ["algos"])  # not a terminal: one whole line per algorithm
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    toy = next(line for line in lines if line.startswith("toy_reinforce "))
    assert "(Toy REINFORCE, plugin)" in toy and "reads ppo, kl, rollout, toy;" in toy
    ppo = next(line for line in lines if line.startswith("ppo "))  # a method with its composed forms
    assert "(PPO, grue)" in ppo and "reads ppo, kl, rollout;" in ppo and "nlpo (NLPO)" in ppo
    assert not any(line.startswith("nlpo ") for line in lines)  # a form of PPO, not a method of its own
