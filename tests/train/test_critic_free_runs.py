"""Whole runs of the critic-free methods on the tiny models: results file, logs, board row, resume.

IMDB mini presets with the tiny models (tests/conftest.py `tiny_imdb_args`): 5 iterations of 24 tokens,
i.e. one prompt's group of 4 six-token samples an iteration for the group methods.
"""
from __future__ import annotations

import json

import pytest

from grue.board.build import build_board
from grue.board.export import board_markdown
from grue.config import load_config
from grue.results.schema import validate_results
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


def train_log(path):
    return [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("algo", ["grpo", "rloo", "reinforce_pp", "reinforce_pp_baseline", "supervised_grpo",
                                  "rloo_mask", "dapo", "gspo", "cispo"])
def test_each_critic_free_method_writes_a_valid_results_file(tiny_imdb_args, algo):
    path = run([*tiny_imdb_args, f"algo={algo}"])
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == []
    assert doc["algo"] == algo and doc["reward"] == "sentiment" and doc["comparable_to_paper"] is False
    assert {"sentiment", "perplexity"} <= set(doc["metrics"]["test"])
    log = train_log(path)
    assert [r["iteration"] for r in log] == [1, 2, 3, 4, 5]
    assert all(r["tokens"] == 24 for r in log)  # the same generated tokens per iteration as PPO's runs
    assert all(r["loss/value"] == 0.0 for r in log)  # no critic
    if algo == "supervised_grpo":  # warm start trained once, then the RL run's initial model and reference
        sup = list(path.parent.glob("imdb-mini-supervised-seed0-*"))
        assert len(sup) == 1 and doc["init_model"] == str(sup[0] / "model")
    if algo == "rloo_mask":
        fractions = [r["nlpo/mask_bound_fraction"] for r in log]
        assert doc["nlpo_mask"] == {"iterations": 5, "mean_bound_fraction": pytest.approx(sum(fractions) / 5),
                                    "max_bound_fraction": max(fractions), "final_bound_fraction": fractions[-1]}
    else:
        assert "nlpo_mask" not in doc


def test_grpo_options_reach_the_log_and_the_hash(tiny_imdb_args):
    from grue.config import config_hash

    base = [*tiny_imdb_args, "algo=grpo"]
    assert config_hash(load_config(base)) != config_hash(load_config([*base, "grpo.scale_rewards=false"]))
    path = run([*base, "kl.placement=loss", "kl.estimator=k3", "kl.init_coef=0.1", "kl.k_beta=0"])
    log = train_log(path)
    assert all(r["kl_coef"] == 0.1 and r["next_kl_coef"] == 0.1 and "loss/kl" in r for r in log)  # constant beta
    assert json.loads((path / "results.json").read_text())["regulariser"]["placement"] == "loss"
    reward_path = run([*base, "kl.placement=reward", f"output_dir={path.parent.parent / 'reward'}"])
    assert all("loss/kl" not in r for r in train_log(reward_path))  # the penalty is in the reward instead
    assert json.loads((reward_path / "results.json").read_text())["regulariser"]["placement"] == "reward"


def test_critic_free_rows_show_on_the_board_with_their_labels(tiny_imdb_args):
    paths = [run([*tiny_imdb_args, f"algo={algo}"]) for algo in ("grpo", "reinforce_pp_baseline")]
    markdown = board_markdown(build_board(paths))
    assert "GRPO" in markdown and "REINFORCE++-baseline" in markdown


def test_an_interrupted_grpo_run_resumes_to_the_same_final_metrics(tiny_imdb_args, tmp_path, monkeypatch):
    from grue.train.rl import trainer as trainer_module

    args = [*tiny_imdb_args, "algo=grpo"]
    straight = json.loads((run([*args, f"output_dir={tmp_path / 'a'}"]) / "results.json").read_text())
    real_step = trainer_module.RLTrainer.step

    def crash_at_iteration_3(self):
        if self.iteration == 3:
            raise KeyboardInterrupt("simulated kill")
        return real_step(self)

    monkeypatch.setattr(trainer_module.RLTrainer, "step", crash_at_iteration_3)
    with pytest.raises(KeyboardInterrupt):
        run([*args, f"output_dir={tmp_path / 'b'}"])
    monkeypatch.setattr(trainer_module.RLTrainer, "step", real_step)
    resumed = run([*args, f"output_dir={tmp_path / 'b'}"])
    assert json.loads((resumed / "results.json").read_text())["metrics"] == straight["metrics"]
    assert [r["iteration"] for r in train_log(resumed)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("arg", ["grpo.group_size=1", "rloo.k=1", "kl.placement=both", "kl.estimator=k2", "rloo.steps=twice", "grpo.loss_aggregation=mean",
                                 "reinforce_pp.gamma=1.5", "reinforce_pp_baseline.group_size=1",
                                 "grpo.loss.ratio=episode", "grpo.loss.clip=both", "grpo.loss.clip_high=-0.1",
                                 "grpo.loss.overlong_buffer=1.5"])
def test_a_bad_critic_free_setting_is_refused_with_its_key(tiny_imdb_args, arg):
    from grue.config import ConfigError

    key = arg.split("=")[0]
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config([*tiny_imdb_args, "algo=grpo", arg])


def test_the_new_groups_change_no_paper_algorithm_s_hash(tiny_imdb_args):
    from grue.config import config_hash

    for algo in ("ppo", "nlpo", "supervised_ppo"):
        args = [*tiny_imdb_args, f"algo={algo}"]
        assert config_hash(load_config(args)) == config_hash(load_config([*args, "grpo.group_size=8", "rloo.k=8", "rloo.steps=single"]))
