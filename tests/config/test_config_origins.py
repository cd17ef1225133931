"""`grue config --origins`: each value of the resolved config followed by the layer that set it.

The expected origins are read off the task's own declaration (tasks/imdb.py's layers, looked up here), the
command line typed and the schema's defaults, not off the loader's trace; the printed values are parsed
back as YAML and compared with `load_config`'s, so origins never change what is shown.
"""
from __future__ import annotations

import yaml

from grue.commands.config_origins import config_with_origins, traced_load
from grue.config import load_config
from grue.config.provenance import DEFAULT, origin_of
from grue.config.read_groups import shown_config
from omegaconf import OmegaConf

ARGS = ["task=imdb", "profile=mini", "algo=ppo", "ppo.epochs=3"]


def _comment_of(text: str, key: str) -> str:
    """The origin comment on the line of top-level-group leaf `group.leaf` in the annotated YAML."""
    group, leaf = key.split(".")
    lines = text.splitlines()
    start = lines.index(f"{group}:")
    line = next(line for line in lines[start + 1:] if line.startswith(f"  {leaf}:"))
    return line.split(" # ", 1)[1]


def test_each_value_names_the_layer_that_set_it():
    from tasks import get_task

    task = get_task("imdb")
    _, text, note = config_with_origins(ARGS)
    mini = task.profiles["mini"]
    assert mini["model"]["max_prompt_length"] == 24                 # the mini profile of tasks/imdb.py sets it
    assert _comment_of(text, "model.max_prompt_length") == "task imdb, profile mini"
    assert "truncation_side" in task.base["model"] and "truncation_side" not in mini.get("model", {})
    assert _comment_of(text, "model.truncation_side") == "task imdb"
    assert _comment_of(text, "ppo.epochs") == "command line"          # typed: wins over the preset's 2
    assert "learning_rate" in task.algos["mini"]["ppo"]["ppo"]
    assert _comment_of(text, "ppo.learning_rate") == "task imdb, mini/ppo preset"
    assert _comment_of(text, "model.dtype") == DEFAULT               # nobody sets it
    assert text.splitlines()[0].endswith("# command line")           # task=imdb was typed
    assert "seed: 0" in text and text.split("seed: 0", 1)[1].split("\n")[0].endswith("# default")
    assert note == ""                                                # a built-in task inherits nothing


def test_the_annotated_yaml_holds_exactly_the_plain_values():
    cfg, text, _ = config_with_origins(ARGS)
    shown = shown_config(OmegaConf.to_container(cfg, resolve=True), cfg.algo)
    assert yaml.safe_load(text) == shown
    assert all(" # " in line for line in text.splitlines() if not line.rstrip().endswith(":"))


def test_a_variant_and_a_sweep_cell_are_named_as_such():
    cfg, origins = traced_load(["task=imdb", "profile=mini", "algo=grpo", "init=supervised"])
    assert cfg.algo == "supervised_grpo"
    assert origin_of("init", origins) == "command line"
    assert origin_of("algo", origins).startswith("variant (algo=grpo")  # the name typed was grpo
    assert origin_of("mask", origins).startswith("variant")

    from grue.config.provenance import Trace

    trace = Trace()
    load_config(["task=imdb", "profile=mini"], base={"algo": "ppo", "seed": 3}, trace=trace)
    assert origin_of("seed", trace.origins()).startswith("the caller")


def test_a_group_set_whole_replaces_the_origins_below_it():
    from grue.config.provenance import Trace

    trace = Trace()
    trace.add("a", {"eval": {"metric_options": {"x": 1}, "batch_size": 2}})
    trace.add("b", {"eval": {"metric_options": {}}})
    origins = trace.origins()
    assert origin_of("eval.metric_options", origins) == "b" and "eval.metric_options.x" not in origins
    assert origin_of("eval.batch_size", origins) == "a" and origin_of("model.kind", origins) == DEFAULT


def test_line_breaks_lists_and_keys_with_colons_stay_one_valid_yaml_line_each():
    from grue.commands.config_origins import annotated_yaml

    values = {"generation": {"stop": ["\n", "a: b"], "prompt_suffix": "\nTopic:"},
              "code_sha256": {"python:tone_reward.py:politeness": "b1dc"}, "eval": {"metric_options": {}}}
    lines = annotated_yaml(values, lambda key: f"origin of {key}")
    assert len(lines) == 7 and yaml.safe_load("\n".join(lines)) == values
    assert lines[1].endswith("# origin of generation.stop")
