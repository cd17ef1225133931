"""A task file with `inherit:`: `grue config --origins` tells the file's own values from the inherited
task's, and one note names what the inherited task brought that changes the run (issue 47: an IMDB parent
silently brought its 24-token left truncation, its sentiment model and its learning rates)."""
from __future__ import annotations

from grue.commands.config_origins import config_with_origins, traced_load
from grue.config.provenance import origin_of

OWN_MODEL = "settings:\n  model: {kind: causal, padding_side: left, truncation_side: left, max_prompt_length: 24}\n"


def _inherit_imdb(user_task) -> None:
    text = user_task.read_text()
    assert OWN_MODEL in text
    user_task.write_text(text.replace(OWN_MODEL, "inherit: imdb\nsettings:\n"))


def test_inherited_values_are_named_for_the_task_they_came_from(user_task):
    _inherit_imdb(user_task)
    cfg, origins = traced_load([f"task={user_task}", "profile=mini", "algo=ppo"])
    from tasks import get_task

    imdb_mini = get_task("imdb").profiles["mini"]
    assert cfg.model.max_prompt_length == imdb_mini["model"]["max_prompt_length"] == 24
    assert origin_of("model.max_prompt_length", origins) == "inherited from imdb, profile mini"
    assert origin_of("model.truncation_side", origins) == "inherited from imdb"
    assert origin_of("reward.model", origins) == "inherited from imdb, profile mini"
    # the file's own blocks: settings (generation), profiles.mini (data sizes), algos.mini.ppo (ppo budget)
    assert origin_of("generation.max_new_tokens", origins) == "task echo_topic"
    assert origin_of("data.max_val", origins) == "task echo_topic, profile mini"
    assert origin_of("ppo.learning_rate", origins) == "task echo_topic, mini/ppo preset"
    assert origin_of("reward.name", origins) == "task echo_topic"           # its rewards: list


def test_the_note_names_what_inherit_brought(user_task):
    _inherit_imdb(user_task)
    _, _, note = config_with_origins([f"task={user_task}", "profile=mini", "algo=ppo"])
    assert note.startswith("note: inherit: imdb brought ")
    for setting in ("model.max_prompt_length=24", "model.truncation_side=left",
                    "reward.model=packaged:minilm-sentiment-split42", "supervised.learning_rate=2e-05"):
        assert setting in note
    assert "ppo.learning_rate" not in note                                   # the file sets its own


def test_a_file_that_inherits_nothing_has_no_note_and_no_inherited_origin(user_task):
    _, text, note = config_with_origins([f"task={user_task}", "profile=mini", "algo=ppo"])
    assert note == "" and "inherited from" not in text
    assert "max_prompt_length: 24" in text and text.split("max_prompt_length: 24")[1].split("\n")[0].endswith(
        "# task echo_topic")
    import yaml

    assert yaml.safe_load(text)["data"]["prompt_suffix"] == "\nTopic:"  # a multi-line value stays one YAML line


def test_grue_run_says_the_same_note(user_task):
    from grue.commands.config_origins import inherit_note_of
    from grue.config import load_config

    args = [f"task={user_task}", "profile=mini", "algo=ppo"]
    assert inherit_note_of(args, load_config(args)) == ""                  # nothing inherited yet
    _inherit_imdb(user_task)
    _, _, note = config_with_origins(args)
    assert note and inherit_note_of(args, load_config(args)) == note
