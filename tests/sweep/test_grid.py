"""Grid expansion: comma lists in any key, task=all / algo=all, one cell per distinct config hash."""
import pytest

from grue.config import config_hash, load_config
from grue.sweep.grid import SweepError, expand, expand_union, split_values
from grue.sweep.state import sweep_hash
from tasks import task_names


def test_comma_lists_multiply_in_argument_order():
    cells = expand(["task=imdb,commongen", "algo=ppo,nlpo", "seed=0,1,2", "reward=meteor,rouge1", "profile=mini"])
    assert len(cells) == 2 * 2 * 3 * 2
    assert cells[0].args == ("task=imdb", "algo=ppo", "seed=0", "reward=meteor", "profile=mini")
    assert cells[1].args[-2] == "reward=rouge1"  # the last key varies fastest
    assert all(c.hash == config_hash(load_config(list(c.args))) for c in cells)
    assert len({c.hash for c in cells}) == len(cells)


def test_all_names_every_task_and_algorithm_and_rewards_only_split_rl_cells():
    cells = expand(["task=all", "algo=all", "seed=0", "reward=meteor,rouge1", "profile=mini"])
    # zero_shot, supervised and DPO ignore the reward: one cell each; the reward-optimising methods: one per reward
    from grue.sweep.grid import every_method
    from grue.train.registry import optimises_reward

    methods = every_method()
    rl = sum(1 for name in methods if optimises_reward(name))
    assert rl >= 4 and len(cells) == len(task_names()) * ((len(methods) - rl) + rl * 2)
    assert {c.cfg.task for c in cells} == set(task_names())
    assert {c.cfg.algo for c in cells} == set(methods)


def test_brackets_keep_list_values_whole_and_output_dir_is_not_swept():
    assert split_values("[meteor,rouge1],[bleu]") == ["[meteor,rouge1]", "[bleu]"]
    cells = expand(["task=imdb", "algo=zero_shot", "profile=mini", "eval.metrics=[meteor,rouge1],[bleu]"])
    assert [list(c.cfg.eval.metrics) for c in cells] == [["meteor", "rouge1"], ["bleu"]]
    with pytest.raises(SweepError, match="output_dir cannot be swept"):
        expand(["output_dir=a,b"])


def test_bad_values_name_the_cell():
    with pytest.raises(SweepError, match="cell task=imdb algo=npo: algo: unknown value 'npo'"):
        expand(["task=imdb", "algo=ppo,npo"])


def test_the_sweep_identity_does_not_depend_on_argument_order():
    a = expand(["algo=ppo,nlpo", "seed=0,1", "profile=mini"])
    b = expand(["seed=1,0", "algo=nlpo,ppo", "profile=mini"])
    assert sweep_hash(a) == sweep_hash(b)


def test_a_union_of_grids_adds_each_grid_to_the_common_arguments_once():
    common = ["task=imdb", "profile=mini", "seed=0,1"]
    cells = expand_union(common, ["algo=zero_shot", "algo=ppo reward=sentiment,meteor", "algo=ppo reward=meteor"])
    arms = [(c.cfg.algo, c.cfg.reward.name if c.cfg.algo == "ppo" else None, c.cfg.seed) for c in cells]
    assert arms == [("zero_shot", None, 0), ("zero_shot", None, 1), ("ppo", "sentiment", 0), ("ppo", "meteor", 0),
                    ("ppo", "sentiment", 1), ("ppo", "meteor", 1)]  # the third grid's cells were there already
    assert [c.hash for c in cells[2:]] == [c.hash for c in expand([*common, "algo=ppo", "reward=sentiment,meteor"])]
    assert expand_union(common + ["algo=ppo"], []) == expand(common + ["algo=ppo"])
    with pytest.raises(SweepError, match="--grid 'seed=2 algo=ppo' sets seed, which the arguments for every grid"):
        expand_union(common, ["seed=2 algo=ppo"])
    with pytest.raises(SweepError, match="--grid '' has no arguments"):
        expand_union(common, [""])


def test_critic_settings_reach_only_the_cells_with_a_dense_critic():
    cells = expand(["task=imdb", "profile=mini", "algo=ppo", "reward.dense=critic,null", "critic.backend=self"])
    assert len(cells) == 2
    dense = next(c for c in cells if c.cfg.reward.dense == "critic")
    plain = next(c for c in cells if c.cfg.reward.dense is None)
    assert "critic.backend=self" in dense.args and not any(a.startswith("critic.") for a in plain.args)
    assert plain.hash == config_hash(load_config(["task=imdb", "profile=mini", "algo=ppo"]))


def test_grids_that_write_to_different_places_are_refused():
    with pytest.raises(SweepError, match="different output_dir"):
        expand_union(["task=imdb", "profile=mini", "seed=0"], ["algo=zero_shot output_dir=a", "algo=ppo output_dir=b"])
