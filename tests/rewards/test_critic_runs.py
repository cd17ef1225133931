"""reward.dense=critic in whole runs: real local critics, the logs, resume without re-asking, refusals."""
from __future__ import annotations

import json

import pytest

from grue.config import ConfigError, load_config
from grue.rewards.critic.local_backend import LocalLMCritic
from grue.run.runner import Run

TINY_TEMPLATE = "labels: Positive=+1, Negative=-1\n---\nText: {generation}\nAnswer:\n"


def run(args):
    return Run(load_config(args), args).execute()


@pytest.fixture
def critic_args(tiny_imdb_args, tmp_path):
    template = tmp_path / "tiny_template.txt"
    template.write_text(TINY_TEMPLATE)  # a prompt that fits the tiny model's 128 positions
    return [*tiny_imdb_args, "algo=ppo", "reward.dense=critic", "critic.backend=self",
            f"critic.template={template}", "critic.max_new_tokens=8", "critic.batch_size=3"]


def rows(path):
    return [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]


def test_a_run_with_a_self_critic_logs_extrinsic_and_intrinsic_rewards_and_critic_counts(critic_args):
    path = run(critic_args)
    log = rows(path)
    assert len(log) == 5
    for row in log:
        answered = sum(row[f"critic/{o}"] for o in ("spans", "none", "refusal", "malformed", "failed"))
        assert answered == row["critic/asked"] + row["critic/cached"] > 0
        assert row["reward/extrinsic_mean"] == pytest.approx(row["reward_mean"], abs=1e-6)
        assert "reward/intrinsic_sum_mean" in row and row["critic/wall_s"] > 0
    assert list((path / "critic_cache").glob("*.jsonl"))


def test_a_run_killed_after_the_critic_answered_resumes_without_asking_again(critic_args, monkeypatch):
    from grue.train.rl import trainer as trainer_module

    real_update = trainer_module.RLTrainer.update

    def killed_in_iteration_3(self, exp):
        if self.iteration == 2:  # iteration 3's episodes were generated and judged, not yet trained on
            raise KeyboardInterrupt("simulated kill")
        return real_update(self, exp)

    monkeypatch.setattr(trainer_module.RLTrainer, "update", killed_in_iteration_3)
    with pytest.raises(KeyboardInterrupt):
        run(critic_args)
    monkeypatch.setattr(trainer_module.RLTrainer, "update", real_update)
    asked = []
    real_judge = LocalLMCritic.judge
    monkeypatch.setattr(LocalLMCritic, "judge", lambda self, prompts: asked.append(len(prompts)) or
                        real_judge(self, prompts))
    log = rows(run(critic_args))
    third = next(r for r in log if r["iteration"] == 3)
    assert third["critic/asked"] == 0 and third["critic/cached"] > 0  # the same episodes, answered from disk
    assert sum(asked) == sum(r["critic/asked"] for r in log if r["iteration"] > 3)


@pytest.mark.parametrize("args, complaint", [
    (["critic.backend=local"], "critic.model"),
    (["critic.backend=http", "critic.model=m"], "critic.base_url"),
    (["critic.backend=http", "critic.model=m", "critic.base_url=http://127.0.0.1:9/v1",
      "critic.api_key_env=GRUE_TEST_UNSET_KEY"], "GRUE_TEST_UNSET_KEY"),
    (["critic.backend=self", "algo=supervised_ppo"], "model.supervised_init"),
    (["critic.backend=self", "critic.template=no_such_template"], "no_such_template"),
    (["critic.backend=oracle"], "critic.backend"),
    (["critic.backend=self", "critic.span_reward=0"], "critic.span_reward"),
])
def test_bad_critic_settings_are_refused_in_one_line_before_anything_runs(args, complaint, monkeypatch):
    monkeypatch.delenv("GRUE_TEST_UNSET_KEY", raising=False)
    with pytest.raises(ConfigError) as err:
        load_config(["task=imdb", "profile=mini", "algo=ppo", "reward.dense=critic", *args])
    assert complaint in str(err.value) and "\n" not in str(err.value)


def test_critic_settings_without_a_dense_critic_are_refused_and_dense_ones_change_the_hash():
    from grue.config import config_hash
    from grue.config.cross_fields import CrossFieldError, check_cross_fields

    with pytest.raises((ConfigError, CrossFieldError), match="critic.alpha_intrinsic is set but reward.dense"):
        check_cross_fields(load_config(["task=imdb", "profile=mini", "algo=ppo", "critic.alpha_intrinsic=0.5"]))
    plain = config_hash(load_config(["task=imdb", "profile=mini", "algo=ppo"]))
    dense = ["task=imdb", "profile=mini", "algo=ppo", "reward.dense=critic", "critic.model=packaged:smollm2-135m"]
    assert config_hash(load_config(dense)) != plain
    assert config_hash(load_config(dense)) != config_hash(load_config([*dense, "critic.alpha_intrinsic=0.5"]))


@pytest.mark.slow
def test_the_packaged_instruct_model_answers_the_sentiment_template_in_its_format():
    from grue.rewards.critic.parse import parse_critique
    from grue.rewards.critic.template import load_template

    template = load_template("sentiment")
    critic = LocalLMCritic("packaged:smollm2-135m", batch_size=2, max_new_tokens=24)
    prompts = [template.render("This movie", "was wonderful, with a brilliant cast.", 0.9),
               template.render("The plot", "is a dull and tedious mess.", 0.1)]
    answers = critic.judge(prompts)
    assert len(answers) == 2 and all(isinstance(a, str) and a.strip() for a in answers)
    outcomes = [parse_critique(a, list(template.labels)).outcome for a in answers]
    assert {"spans", "none"} & set(outcomes)  # it follows the answer format at least once (how well: the scripts)
