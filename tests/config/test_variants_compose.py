"""Variants compose (issue 43): `init=` and `mask=` are settings any RL method takes, folded into `algo` when
the config is loaded, so a composed spelling and the registered name are one run with one hash and label."""
import pytest

from grue.config import config_hash, load_config
from grue.config.load import ConfigError
from grue.train.registry import get_algorithm

MINI = ["task=imdb", "profile=mini"]
SAME_RUN = [  # (registered name, composed spelling)
    ("supervised_ppo", ["algo=ppo", "init=supervised"]),
    ("nlpo", ["algo=ppo", "mask=nlpo"]),
    ("supervised_nlpo", ["algo=ppo", "init=supervised", "mask=nlpo"]),
    ("supervised_nlpo", ["algo=nlpo", "init=supervised"]),
    ("supervised_grpo", ["algo=grpo", "init=supervised"]),
    ("grpo_mask", ["algo=grpo", "mask=nlpo"]),
    ("rloo_mask", ["algo=rloo", "mask=nlpo"]),
    ("supervised_grpo_mask", ["algo=grpo", "init=supervised", "mask=nlpo"]),
    ("grpo", ["algo=grpo_mask", "mask=none"]),
    ("supervised_dpo", ["algo=dpo", "init=supervised"]),
]


@pytest.mark.parametrize("name,spelling", SAME_RUN)
def test_the_composed_spelling_is_the_registered_run(name, spelling):
    named, composed = load_config([*MINI, f"algo={name}"]), load_config([*MINI, *spelling], refuse_unread=True)
    assert composed.algo == name
    assert config_hash(composed) == config_hash(named)
    assert (composed.init, composed.mask) == (named.init, named.mask)  # the parts recorded alike


def test_the_board_labels_a_composed_run_from_its_parts():
    assert get_algorithm("supervised_grpo_mask").label == "Supervised+GRPO (masked)"
    assert get_algorithm("grpo_mask").label == "GRPO (masked)"
    assert get_algorithm("supervised_rloo").label == "Supervised+RLOO"
    assert get_algorithm("supervised_nlpo").label == "Supervised+NLPO"  # the paper's name kept


def test_a_composed_form_reads_and_inherits_what_its_variants_add():
    both = get_algorithm("supervised_grpo_mask")
    assert {"nlpo", "supervised", "grpo"} <= set(both.hashed_groups)
    assert both.warm_start == "supervised" and both.presets_from == "supervised_nlpo"
    from grue.train.rl.grpo import GRPOTrainer
    from grue.train.rl.nlpo import NLPOTrainer

    trainer = both.trainer_class()
    assert issubclass(trainer, GRPOTrainer) and issubclass(trainer, NLPOTrainer)
    assert trainer is get_algorithm("grpo_mask").trainer_class()  # one class per pair


def test_a_variant_an_algorithm_does_not_take_is_refused_when_typed_and_dropped_when_shared():
    with pytest.raises(ConfigError, match="mask=nlpo: algo=dpo has no such variant"):
        load_config([*MINI, "algo=dpo", "mask=nlpo"], refuse_unread=True)
    with pytest.raises(ConfigError, match="init"):
        load_config([*MINI, "algo=grpo", "init=ppo"])
    # a warm start's first run shares the command line: algo=supervised with init=/mask= is the supervised run
    shared = load_config([*MINI, "algo=supervised", "init=supervised", "mask=nlpo"])
    assert shared.algo == "supervised" and config_hash(shared) == config_hash(load_config([*MINI, "algo=supervised"]))


def test_the_variant_keys_are_not_hashed_themselves():
    cfg = load_config([*MINI, "algo=zero_shot"])
    assert cfg.init is None and cfg.mask is None
    assert config_hash(load_config([*MINI, "algo=grpo", "init=none"])) == config_hash(load_config([*MINI, "algo=grpo"]))
