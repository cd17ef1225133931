"""schema_config(): each call a config of its own at the schema's defaults, as building one from the
dataclasses gives, though later calls copy a kept one (grue/config/schema.py)."""
from omegaconf import OmegaConf

from grue.config.load import load_config
from grue.config.schema import run_schema, schema_config


def test_each_call_is_a_fresh_config_equal_to_a_newly_built_one_and_checked_like_it():
    built = OmegaConf.structured(run_schema())
    first = schema_config()
    assert OmegaConf.to_container(first) == OmegaConf.to_container(built)
    first.seed = 123
    first.ppo.learning_rate = 9.0
    second = schema_config()  # the kept config was not touched through the first copy
    assert second.seed == built.seed and second.ppo.learning_rate == built.ppo.learning_rate
    assert OmegaConf.get_type(second) is OmegaConf.get_type(built)
    try:  # typed and closed like the built one: an ill-typed value or an unknown key is refused
        second.seed = "not a number"
    except Exception as err:
        assert "seed" in str(err)
    else:
        raise AssertionError("a copied config took a string for an int field")
    assert OmegaConf.is_struct(second) == OmegaConf.is_struct(built)


def test_loading_a_config_twice_gives_the_same_values_and_leaves_no_trace_in_the_next():
    a = load_config(["task=imdb", "algo=ppo", "seed=7", "ppo.learning_rate=0.5"])
    b = load_config(["task=imdb", "algo=ppo"])
    assert a.seed == 7 and a.ppo.learning_rate == 0.5
    assert b.seed != 7 and b.ppo.learning_rate != 0.5
    assert OmegaConf.to_container(load_config(["task=imdb", "algo=ppo"])) == OmegaConf.to_container(b)
