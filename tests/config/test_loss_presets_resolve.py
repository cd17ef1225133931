"""DAPO, GSPO and CISPO (issue 43) resolve on IMDB (causal) and on CommonGen with the packaged encoder-decoder,
each with its paper's loss options over GRPO's group and the task's PPO budget and regulariser, as grpo."""
import pytest

from grue.config import config_hash, load_config

OPTIONS = {"dapo": {"clip_low": 0.2, "clip_high": 0.28, "dynamic_sampling": True, "overlong_buffer": 0.2},
           "gspo": {"ratio": "sequence", "clip_low": 3e-4, "clip_high": 4e-4},
           "cispo": {"clip": "weight", "clip_low": None, "clip_high": 4.0}}
TASKS = [["task=imdb"], ["task=commongen", "model.kind=seq2seq"]]


@pytest.mark.parametrize("profile", ["mini", "paper"])
@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("algo", sorted(OPTIONS))
def test_each_preset_resolves_with_its_options_on_the_ppo_budget(algo, task, profile):
    cfg = load_config([*task, f"profile={profile}", f"algo={algo}"], refuse_unread=True)
    grpo = load_config([*task, f"profile={profile}", "algo=grpo"])
    for key, value in OPTIONS[algo].items():
        assert cfg.grpo.loss[key] == value, key
    assert cfg.ppo.total_steps == grpo.ppo.total_steps and cfg.kl == grpo.kl  # same budget, same regulariser
    assert cfg.grpo.group_size == grpo.grpo.group_size
    assert config_hash(cfg) != config_hash(grpo)


@pytest.mark.parametrize("algo", sorted(OPTIONS))
def test_each_preset_takes_the_warm_start_and_the_mask_by_composition(algo):
    composed = load_config(["task=imdb", "profile=mini", f"algo={algo}", "init=supervised", "mask=nlpo"],
                           refuse_unread=True)
    assert composed.algo == f"supervised_{algo}_mask"
    assert config_hash(composed) == config_hash(load_config(["task=imdb", "profile=mini",
                                                             f"algo=supervised_{algo}_mask"]))


def test_a_loss_option_left_at_its_default_leaves_an_existing_hash_alone():
    grpo = ["task=imdb", "profile=mini", "algo=grpo"]
    assert config_hash(load_config(grpo)) == config_hash(load_config([*grpo, "grpo.loss.ratio=token"]))
    assert config_hash(load_config(grpo)) != config_hash(load_config([*grpo, "grpo.loss.clip_high=0.28"]))
