"""regulariser_of reads where a run's KL term sits, its estimator and its coefficient rule from a resolved
config (results.json's `config`), for every registered algorithm and for configs from before `kl.placement`."""
from __future__ import annotations

import pytest

from grue.train.regulariser import describe_regulariser, regulariser_of

KL = {"init_coef": 0.05, "target": 0.5, "k_beta": 0.2, "target_unit": "token"}


def test_ppo_reads_the_kl_group_adaptive_k1_in_the_reward():
    reg = regulariser_of({"algo": "ppo", "kl": KL})
    assert reg == {"placement": "reward", "estimator": "k1", "rule": "adaptive", "coefficient": 0.05,
                   "target": 0.5, "unit": "token"}
    assert describe_regulariser(reg) == "k1 in reward, adaptive to 0.5/token from 0.05"


def test_a_null_target_or_a_zero_coefficient_is_no_penalty():
    assert regulariser_of({"algo": "ppo", "kl": {**KL, "target": None}})["placement"] == "none"
    assert regulariser_of({"algo": "nlpo", "kl": {**KL, "init_coef": 0.0}})["placement"] == "none"
    assert describe_regulariser(regulariser_of({"algo": "ppo", "kl": {**KL, "target": None}})) == "none"


def test_k_beta_zero_keeps_beta_fixed():
    reg = regulariser_of({"algo": "rloo", "kl": {**KL, "k_beta": 0.0}})
    assert (reg["rule"], reg["coefficient"], reg["target"], reg["unit"]) == ("fixed", 0.05, None, None)
    assert describe_regulariser(reg) == "k1 in reward, fixed 0.05"


def test_a_per_episode_target_says_its_unit():
    reg = regulariser_of({"algo": "ppo", "kl": {**KL, "target": 6.0, "target_unit": "episode"}})
    assert describe_regulariser(reg) == "k1 in reward, adaptive to 6/episode from 0.05"


def test_the_shared_placement_and_estimator_fields():
    reg = regulariser_of({"algo": "grpo", "kl": {**KL, "init_coef": 0.04, "k_beta": 0.0, "placement": "loss",
                                                "estimator": "k3"}, "grpo": {"group_size": 4}})
    assert describe_regulariser(reg) == "k3 in loss, fixed 0.04"


def test_a_grpo_run_from_before_the_shared_placement_reads_as_it_ran():
    old = {"algo": "grpo", "kl": KL, "grpo": {"group_size": 4, "beta": 0.04, "kl": "loss"}}
    assert describe_regulariser(regulariser_of(old)) == "k3 in loss, fixed 0.04"
    in_reward = {**old, "grpo": {**old["grpo"], "kl": "reward"}}
    assert describe_regulariser(regulariser_of(in_reward)) == "k1 in reward, adaptive to 0.5/token from 0.05"
    assert regulariser_of({**old, "grpo": {**old["grpo"], "beta": 0.0}})["placement"] == "none"


@pytest.mark.parametrize("algo", ["ppo", "nlpo", "rloo", "reinforce_pp"])
def test_an_unread_grpo_section_says_nothing_about_another_method(algo):
    """A resolved config holds every group: a PPO (or RLOO...) file from before kl.placement carries the
    default grpo.kl=loss it never read, and its regulariser is still the kl group's, in the reward."""
    old = {"algo": algo, "kl": KL, "grpo": {"group_size": 4, "beta": 0.04, "kl": "loss"}}
    assert describe_regulariser(regulariser_of(old)) == "k1 in reward, adaptive to 0.5/token from 0.05"


@pytest.mark.parametrize("algo", ["zero_shot", "supervised", "dpo", "best_of_n"])
def test_methods_without_rl_have_no_kl_term(algo):
    assert regulariser_of({"algo": algo, "kl": KL})["placement"] == "none"


def test_an_unregistered_algorithm_with_a_kl_group_is_read_as_rl():
    assert regulariser_of({"algo": "someone_elses", "kl": KL})["placement"] == "reward"
    assert regulariser_of({"algo": "someone_elses"})["placement"] == "none"


def test_reading_a_regulariser_imports_no_torch():
    import subprocess
    import sys

    code = ("import sys; from grue.train.regulariser import regulariser_of; "
            "regulariser_of({'algo': 'grpo', 'kl': {}}); print('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"
