"""What a task file declares reaches the config, the hash and the samples as a built-in task's does."""
from __future__ import annotations

import json
import os
import shutil
import textwrap

import pandas as pd

from grue.config import config_hash, load_config
from user_task_fixtures import TEXTS


def _hash(task_file, *args: str) -> str:
    return config_hash(load_config([f"task={task_file}", "profile=mini", "algo=ppo", *args]))


def test_the_hash_covers_the_file_and_data_content_not_their_place(user_task, tmp_path):
    before = _hash(user_task)
    copy = tmp_path / "elsewhere"
    shutil.copytree(user_task.parent, copy)
    assert _hash(copy / user_task.name) == before  # the folder moved: the same setting
    user_task.write_text(user_task.read_text() + "# an edit\n")
    edited = _hash(user_task)
    assert edited != before                        # edited: a new setting
    test_file = user_task.parent / "data" / "test.jsonl"
    test_file.write_text(test_file.read_text().replace("wooden", "stiff"))
    from grue.task_files import discover
    discover._BY_STAT.clear(), discover._READ.clear()  # a new process reads the data again
    assert _hash(user_task) != edited              # its data changed: a new setting too
    cfg = load_config([f"task={user_task}", "profile=mini"])
    assert cfg.task == "echo_topic" and cfg.task_file == str(user_task)


def test_a_task_file_declares_samples_metrics_rewards_and_presets(user_task):
    from tasks import get_task

    cfg = load_config([f"task={user_task}", "profile=mini", "algo=ppo"])
    assert list(cfg.eval.metrics) == ["rouge1", "python:my_metrics.py:topic_hit", "distinct_1"]
    assert cfg.reward.name == "python:my_rewards.py:overlap"
    assert (cfg.ppo.total_steps, cfg.eval.eval_every, cfg.data.max_val) == (48, 2, 6)
    spec = get_task("echo_topic")
    assert spec.task_metrics == ("rouge1", "python:my_metrics.py:topic_hit") and not spec.grue_task
    splits = spec.loader(cfg)
    assert {len(splits["train"]), len(splits["val"]), len(splits["test"])} == {12, 6}
    first = {s.id: s for s in splits["test"]}["test0-4"]
    text, gist, topic = TEXTS[4]
    assert first.prompt == f"Sentence: {text}\nTopic:"
    assert first.references == (gist, topic) and first.meta == {"topic": topic}


def test_tasks_path_folders_are_found_by_name(user_task, tmp_path, monkeypatch):
    from tasks import task_names, task_origin, get_task

    other = tmp_path / "more_tasks"
    other.mkdir()
    (other / "second.yaml").write_text(user_task.read_text().replace("name: echo_topic", "name: second_echo")
                                       .replace("data/", f"{user_task.parent}/data/"))
    (other / "_shared.yaml").write_text("not: a task\n")  # skipped: starts with _
    (other / "helpers.py").write_text("def f(): pass\n")  # no TASK: not a task, and not imported
    monkeypatch.setenv("GRUE_TASKS_PATH", os.pathsep.join([str(user_task.parent), str(other)]))
    assert {"echo_topic", "second_echo"} <= set(task_names())
    assert task_names()[:7] == ("imdb", "commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")
    assert task_origin(get_task("second_echo")) == str(other / "second.yaml")
    assert load_config(["task=second_echo", "profile=mini"]).task_sha256


def test_inherit_takes_a_built_in_tasks_presets_under_the_files_own(user_task):
    text = user_task.read_text().replace("settings:\n  model: {kind: causal, padding_side: left, truncation_side: "
                                         "left, max_prompt_length: 24}\n", "inherit: dailydialog\nsettings:\n")
    user_task.write_text(text)
    mine = load_config([f"task={user_task}", "profile=mini", "algo=nlpo"])
    parent = load_config(["task=dailydialog", "profile=mini", "algo=nlpo"])
    assert mine.model.policy == parent.model.policy == "packaged:smollm2-135m"
    assert mine.nlpo == parent.nlpo                                  # the parent's NLPO preset
    assert mine.generation.max_new_tokens == 6 != parent.generation.max_new_tokens  # the file's own setting wins
    assert mine.data.source == "" and mine.reward.name == "python:my_rewards.py:overlap"


def test_csv_parquet_and_toml_give_the_same_samples(user_task):
    from tasks import load_task_file

    data = user_task.parent / "data"
    for split in ("train", "val", "test"):
        frame = pd.read_json(data / f"{split}.jsonl", lines=True)
        frame.to_csv(data / f"{split}.csv", index=False)
        frame.to_parquet(data / f"{split}.parquet", index=False)
    jsonl = load_config([f"task={user_task}", "profile=mini"])
    expected = load_task_file(str(user_task)).loader(jsonl)
    for ext in ("csv", "parquet"):
        other = user_task.parent / f"echo_{ext}.yaml"
        other.write_text(user_task.read_text().replace(".jsonl", f".{ext}").replace("echo_topic", f"echo_{ext}"))
        cfg = load_config([f"task={other}", "profile=mini"])
        assert load_task_file(str(other)).loader(cfg) == expected
    toml = user_task.parent / "echo_toml.toml"
    toml.write_text(textwrap.dedent('''\
        name = "echo_toml"
        prompt = "Sentence: {text}"
        prompt_suffix = "\\nTopic:"
        references = ["gist", "topic"]
        id = "id"
        meta = ["topic"]
        [data.splits]
        train = "data/train.jsonl"
        val = "data/val.jsonl"
        test = "data/test.jsonl"
        [metrics]
        task = ["rouge1"]
        [profiles.mini.data]
        max_train = 12
        max_val = 6
        max_test = 6
    '''))
    cfg = load_config([f"task={toml}", "profile=mini"])
    assert load_task_file(str(toml)).loader(cfg) == expected


def test_a_hub_layout_dataset_is_read_by_split_name(user_task, tmp_path):
    from tasks import load_task_file

    hub = tmp_path / "hub_copy" / "data"
    hub.mkdir(parents=True)
    for split, name in (("train", "train"), ("val", "validation"), ("test", "test")):
        frame = pd.read_json(user_task.parent / "data" / f"{split}.jsonl", lines=True)
        frame.to_parquet(hub / f"{name}-00000-of-00001.parquet", index=False)
    text = user_task.read_text().replace(
        "  splits: {train: data/train.jsonl, val: data/val.jsonl, test: data/test.jsonl}",
        f"  source: {hub.parent}\n  splits: {{train: train, val: validation, test: test}}")
    hub_task = user_task.parent / "echo_hub.yaml"
    hub_task.write_text(text.replace("name: echo_topic", "name: echo_hub"))
    cfg = load_config([f"task={hub_task}", "profile=mini"])
    assert cfg.data.source == str(hub.parent)
    expected = load_task_file(str(user_task)).loader(load_config([f"task={user_task}", "profile=mini"]))
    assert load_task_file(str(hub_task)).loader(cfg) == expected


def test_a_python_task_file(user_task):
    from tasks import get_task

    py = user_task.parent / "shout.py"
    py.write_text(textwrap.dedent('''\
        """A task whose loader no YAML file could write: it makes its samples itself."""
        from grue.config.task_spec import TaskSpec
        from grue.data.sample import Sample


        def load(cfg):
            make = lambda split, n: [Sample(f"{split}-{i}", f"say {i}", (str(i),)) for i in range(n)]
            return {"train": make("train", 4), "val": make("val", 2), "test": make("test", 2)}


        TASK = TaskSpec(name="shout", title="Say the number", source="a test", task_metrics=("rouge1",),
                        naturalness_metrics=(), base={"generation": {"max_new_tokens": 3}}, loader=load)
    '''))
    cfg = load_config([f"task={py}", "profile=mini", "algo=zero_shot"])
    assert cfg.task == "shout" and cfg.generation.max_new_tokens == 3 and cfg.task_sha256
    assert [s.prompt for s in get_task("shout").loader(cfg)["val"]] == ["say 0", "say 1"]
    assert json.loads(json.dumps(list(cfg.eval.metrics))) == ["rouge1"]
