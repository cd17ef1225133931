"""GDPO-style multi-reward normalisation and on-policy distillation (issue 43) resolve on IMDB (causal) and on
CommonGen with the packaged encoder-decoder, on GRPO's group and the task's PPO budget; their options left at
their defaults leave every existing hash alone; a metric mix named inline is a reward."""
import pytest

from grue.config import config_hash, load_config

TASKS = [["task=imdb"], ["task=commongen", "model.kind=seq2seq"]]


@pytest.mark.parametrize("profile", ["mini", "paper"])
@pytest.mark.parametrize("task", TASKS)
def test_gdpo_resolves_with_the_paper_s_steps_under_grpo_s_regulariser(task, profile):
    cfg = load_config([*task, f"profile={profile}", "algo=gdpo"], refuse_unread=True)
    grpo = load_config([*task, f"profile={profile}", "algo=grpo"])
    assert cfg.grpo.loss.reward_normalisation == "per_component" and cfg.grpo.loss.whiten_advantages is True
    assert cfg.grpo.scale_rewards is False
    assert cfg.ppo.total_steps == grpo.ppo.total_steps and cfg.kl == grpo.kl
    assert cfg.grpo.group_size == grpo.grpo.group_size and config_hash(cfg) != config_hash(grpo)


@pytest.mark.parametrize("profile", ["mini", "paper"])
@pytest.mark.parametrize("task", TASKS)
def test_distill_resolves_with_no_task_reward_and_no_reference_kl(task, profile, tmp_path):
    cfg = load_config([*task, f"profile={profile}", "algo=distill", f"grpo.teacher.model={tmp_path}"],
                      refuse_unread=True)
    grpo = load_config([*task, f"profile={profile}", "algo=grpo"])
    assert cfg.grpo.teacher.model == str(tmp_path) and cfg.grpo.teacher.task_weight == 0.0
    assert cfg.grpo.teacher.coef == 1.0 and cfg.grpo.loss_aggregation == "token"
    assert cfg.kl.target is None and cfg.ppo.total_steps == grpo.ppo.total_steps


@pytest.mark.parametrize("algo", ["gdpo", "distill"])
def test_each_takes_the_warm_start_and_the_mask_by_composition(algo):
    composed = load_config(["task=imdb", "profile=mini", f"algo={algo}", "init=supervised", "mask=nlpo"],
                           refuse_unread=True)
    assert composed.algo == f"supervised_{algo}_mask"
    assert config_hash(composed) == config_hash(load_config(["task=imdb", "profile=mini",
                                                             f"algo=supervised_{algo}_mask"]))


@pytest.mark.parametrize("setting, moved", [("grpo.loss.reward_normalisation=total", False),
                                            ("grpo.loss.whiten_advantages=false", False),
                                            ("grpo.teacher.coef=1.0", False), ("grpo.teacher.task_weight=1.0", False),
                                            ("grpo.loss.reward_normalisation=per_component", True),
                                            ("grpo.teacher.model=packaged:smollm2", True)])
def test_an_option_at_its_default_leaves_an_existing_hash_alone(setting, moved):
    grpo = ["task=imdb", "profile=mini", "algo=grpo"]
    assert (config_hash(load_config(grpo)) != config_hash(load_config([*grpo, setting]))) is moved


def test_a_metric_mix_named_inline_is_the_run_s_reward():
    cfg = load_config(["task=commongen", "profile=mini", "model.kind=seq2seq", "algo=gdpo",
                       "reward=meteor@0.5+cider@0.5"])
    assert cfg.reward.name == "meteor@0.5+cider@0.5"
    plain = load_config(["task=commongen", "profile=mini", "model.kind=seq2seq", "algo=gdpo"])
    assert config_hash(cfg) != config_hash(plain)
