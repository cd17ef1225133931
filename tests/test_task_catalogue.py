"""The task catalogue: task files found by scanning tasks/, tasks added from outside, and everything
that lists tasks reading it."""
from __future__ import annotations

import dataclasses

import pytest

import tasks
from grue.board.task_info import grue_tasks, naturalness_metrics, ordered_tasks, task_metrics, task_short
from grue.config import ConfigError, load_config

SEVEN = ("imdb", "commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")


def test_the_seven_task_files_are_found_in_the_paper_order():
    assert tasks.task_names()[:7] == SEVEN and tasks.grue_task_names() == SEVEN
    assert [task_short(t) for t in SEVEN] == ["IMDB", "CommonGen", "CNN/DM", "ToTTo", "WMT16", "NarrQA", "DailyDialog"]
    assert task_metrics("totto") == ("sacrebleu", "parent") and naturalness_metrics("totto") == ("bleurt",)


@pytest.fixture
def extra_task(monkeypatch):
    # Task files read through task=path by earlier tests (the extending docs' tone.yaml) stay in the
    # catalogue for the process; this one's listing is of the built-in tasks and the one registered here.
    monkeypatch.setattr(tasks, "_FILE_TASKS", {})
    spec = dataclasses.replace(tasks.get_task("imdb"), name="imdb_rephrased", title="IMDB, another prompt",
                               short="IMDB-R", order=100, grue_task=False)
    tasks.register_task(spec)
    yield spec
    tasks._REGISTERED.pop(spec.name, None)


def test_a_registered_task_joins_every_listing_but_not_the_grue_score(extra_task):
    assert tasks.task_names()[-1] == "imdb_rephrased" and "imdb_rephrased" not in tasks.grue_task_names()
    assert "imdb_rephrased" not in grue_tasks()
    assert ordered_tasks({"imdb_rephrased", "imdb", "somebody_elses"}) == ["imdb", "imdb_rephrased", "somebody_elses"]
    assert task_short("imdb_rephrased") == "IMDB-R" and task_metrics("imdb_rephrased") == ("sentiment",)
    cfg = load_config(["task=imdb_rephrased", "profile=mini", "algo=ppo"])
    assert cfg.task == "imdb_rephrased" and cfg.eval.metrics[0] == "sentiment"


def test_a_task_name_is_defined_once(extra_task):
    with pytest.raises(ValueError, match="already defined"):
        tasks.register_task(dataclasses.replace(extra_task, title="a second one"))


def test_an_unknown_task_is_refused_with_the_closest_name():
    with pytest.raises(ConfigError, match="imdb"):
        load_config(["task=imbd"])
