"""The critic-free methods' presets: on every task and profile they take the task's own PPO settings
(NLPO's for the masked variants, Supervised+PPO's for the warm-started ones), so they spend the same
generated tokens and optimizer steps, and add only their own group (`presets_from` and `preset` in grue/train/algorithms.py)."""
from __future__ import annotations

import pytest

from grue.config import load_config
from tasks import task_names

SHARED = ("ppo", "kl", "rollout", "generation", "model", "eval")
METHODS = {"grpo": "grpo", "rloo": "rloo", "reinforce_pp": "reinforce_pp",
           "reinforce_pp_baseline": "reinforce_pp_baseline"}


def cfg(task, profile, algo):
    return load_config([f"task={task}", f"profile={profile}", f"algo={algo}"])


@pytest.mark.parametrize("profile", ["paper", "mini"])
@pytest.mark.parametrize("task", list(task_names()))
def test_each_method_runs_on_the_budget_of_its_ppo_counterpart(task, profile):
    counterparts = {"": cfg(task, profile, "ppo"), "supervised_": cfg(task, profile, "supervised_ppo"),
                    "_mask": cfg(task, profile, "nlpo")}
    for method in METHODS:
        for variant, ppo in counterparts.items():
            algo = f"supervised_{method}" if variant == "supervised_" else f"{method}{variant}"
            c = cfg(task, profile, algo)
            for group in SHARED:
                assert c[group] == ppo[group], (algo, group)
            if variant == "_mask":
                assert c.nlpo == ppo.nlpo, algo


@pytest.mark.parametrize("profile", ["paper", "mini"])
def test_the_group_methods_draw_four_samples_per_prompt_and_reinforce_pp_one(profile):
    assert cfg("imdb", profile, "grpo").grpo.group_size == 4
    assert cfg("imdb", profile, "rloo").rloo.k == 4
    assert cfg("imdb", profile, "reinforce_pp_baseline").reinforce_pp_baseline.group_size == 4
    assert cfg("imdb", profile, "reinforce_pp").reinforce_pp.group_size == 1
    grpo = cfg("imdb", profile, "grpo").grpo  # the rest is the paper's (Shao et al. 2024, section 4.2)
    assert (grpo.scale_rewards, grpo.loss_aggregation) == (True, "sequence")


CRITIC_FREE = ("grpo", "rloo", "reinforce_pp", "reinforce_pp_baseline")


def regulariser(task, profile, algo):
    from omegaconf import OmegaConf

    from grue.train.regulariser import describe_regulariser, regulariser_of

    return describe_regulariser(regulariser_of(OmegaConf.to_container(cfg(task, profile, algo), resolve=True)))


@pytest.mark.parametrize("profile", ["paper", "mini"])
@pytest.mark.parametrize("task", list(task_names()))
def test_every_rl_method_runs_under_the_regulariser_of_its_ppo_counterpart(task, profile):
    ppo, sup, nlpo = (regulariser(task, profile, a) for a in ("ppo", "supervised_ppo", "nlpo"))
    assert ppo.startswith("k1 in reward, adaptive") or ppo == "none"
    for method in CRITIC_FREE:
        assert regulariser(task, profile, method) == ppo, method
        assert regulariser(task, profile, f"supervised_{method}") == sup, method
        assert regulariser(task, profile, f"{method}_mask") == nlpo, method
    assert regulariser(task, profile, "rloo_paper") == ppo  # RLOO's paper setting changes its update only


def test_imdb_mini_grpo_and_ppo_show_the_same_regulariser_and_the_paper_settings_their_own():
    assert regulariser("imdb", "mini", "grpo") == regulariser("imdb", "mini", "ppo") == \
        "k1 in reward, adaptive to 0.5/token from 0.05"
    assert regulariser("imdb", "mini", "grpo_paper") == "k3 in loss, fixed 0.04"
    assert regulariser("imdb", "paper", "grpo_paper") == "k3 in loss, fixed 0.04"
    assert regulariser("imdb", "mini", "dr_grpo") == "none"
    dr = cfg("imdb", "mini", "dr_grpo").grpo
    assert (dr.scale_rewards, dr.loss_aggregation, dr.group_size) == (False, "constant", 4)
    rloo = cfg("imdb", "mini", "rloo_paper").rloo
    assert (rloo.steps, rloo.k) == ("single", 4) and cfg("imdb", "mini", "rloo").rloo.steps == "ppo"


def test_the_paper_settings_hash_apart_from_the_defaults():
    from grue.config import config_hash

    hashes = {a: config_hash(cfg("imdb", "mini", a)) for a in ("grpo", "grpo_paper", "dr_grpo", "rloo", "rloo_paper")}
    assert len(set(hashes.values())) == len(hashes)


def test_a_kl_term_in_the_loss_is_refused_for_a_method_with_a_critic():
    from grue.config import ConfigError

    for algo in ("ppo", "nlpo", "supervised_ppo"):
        with pytest.raises(ConfigError, match=r"kl\.placement=loss"):
            load_config(["task=imdb", "profile=mini", f"algo={algo}", "kl.placement=loss"])
    load_config(["task=imdb", "profile=mini", "algo=rloo", "kl.placement=loss"])  # critic-free: allowed


def test_imdb_mini_grpo_fits_one_round_of_whole_groups():
    c = cfg("imdb", "mini", "grpo")
    episodes = c.ppo.steps_per_update // c.rollout.max_new_tokens  # fixed-length 24-token reviews
    assert episodes == 32 and episodes % c.grpo.group_size == 0


def test_a_task_that_declares_its_own_preset_for_a_method_adds_it_over_the_registry_s():
    """The task's entry is the last layer (it wins per key), laid over PPO's preset and the method's own."""
    from grue.train.registry import get_algorithm

    declared = {"ppo": {"ppo": {"epochs": 2}}, "grpo": {"ppo": {"epochs": 7}}}
    assert get_algorithm("grpo").task_preset(declared) == [{"ppo": {"epochs": 2}}, {"grpo": {"group_size": 4}},
                                                           {"ppo": {"epochs": 7}}]
    assert get_algorithm("rloo").task_preset(declared) == [{"ppo": {"epochs": 2}}, {"rloo": {"k": 4}}]
    assert get_algorithm("ppo").task_preset({}) == []
