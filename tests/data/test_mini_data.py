"""The mini profile's data: deterministic in the seed, disjoint splits, faithful references, and rows in the
hub's schema (written as hub parquet they load to the same samples through the hub path)."""
from __future__ import annotations

import pytest

import hub_fixtures
from grue.config import load_config
from grue.data.sample import Sample
from grue.metrics.coverage import concept_coverage
from tasks import get_task

TASKS = ("commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")


def mini(task: str, *extra: str) -> dict[str, list[Sample]]:
    return get_task(task).loader(load_config([f"task={task}", "profile=mini", "algo=zero_shot", *extra]))


@pytest.mark.parametrize("task", TASKS)
def test_mini_splits_are_sized_seeded_and_disjoint(task):
    splits = mini(task)
    assert [len(splits[s]) for s in ("train", "val", "test")] == [200, 24, 24]
    assert splits == mini(task)
    assert mini(task, "data.split_seed=7") != splits
    prompts = {name: {s.prompt for s in samples} for name, samples in splits.items()}
    assert not prompts["train"] & prompts["test"] and not prompts["val"] & prompts["test"]
    assert all(s.references and all(r.strip() for r in s.references) for v in splits.values() for s in v)


@pytest.mark.parametrize(("task", "cue"), [("commongen", "\nSentence:"), ("cnn_dailymail", "\nSummary:"),
                                          ("totto", "\nSentence:"), ("wmt16", "\nGerman:"),
                                          ("narrativeqa", "\nanswer:"), ("dailydialog", " <EOU>")])
def test_mini_prompts_end_with_a_zero_shot_cue(task, cue):
    assert all(s.prompt.endswith(cue) for s in mini(task)["test"])


def test_mini_concepts_are_lemmas_of_their_real_sentence():
    for sample in mini("commongen", "data.max_train=null")["train"]:
        assert 3 <= len(sample.meta["concepts"]) <= 5
        assert concept_coverage(sample.references[0], sample.meta["concepts"]) == 1.0


def test_mini_tables_describe_exactly_their_highlighted_cells():
    for sample in mini("totto")["test"]:
        assert len(sample.references) == 2
        for _attribute, value in sample.meta["recall_table"]:
            assert value in sample.references[0]


def test_mini_stories_state_every_answer():
    for sample in mini("narrativeqa")["test"]:
        assert any(ref in sample.prompt for ref in sample.references)


def test_mini_translations_are_german_with_the_right_articles():
    from grue.data.mini_translation import OBJECTS

    accusative = {"m": "den", "f": "die", "n": "das"}
    for sample in mini("wmt16", "data.max_train=null")["train"]:
        english, german = sample.meta["source"], sample.references[0]
        assert german[0].isupper() and german.endswith(".")
        for en, de, gender in OBJECTS:
            if f" {en} " in f" {english[:-1]} " and " and " not in english:  # one object per clause
                words = german[:-1].split()
                assert accusative[gender] in words[:words.index(de)], (english, german)


def test_mini_dialogues_group_every_reply_to_a_context():
    test = mini("dailydialog", "data.max_test=null")["test"]
    assert any(len(s.references) > 1 for s in test)  # the corpus answers some openings several ways
    assert all(s.meta["intent"] in (0, 1) for s in test)  # heuristic acts: inform or question
    assert all(s.meta["context"] and s.prompt.startswith(s.prompt.split("<EOU>")[0]) for s in test)


def _as_hub(task: str, tmp_path, parts: dict) -> dict[str, list[Sample]]:
    """Write mini rows in the hub layout and load them through the hub path."""
    layouts = {"cnn_dailymail": ("3.0.0/{}-00000-of-00001.parquet", ["data.config=3.0.0"]),
               "wmt16": ("de-en/{}-00000-of-00001.parquet", []),
               "narrativeqa": ("data/{}-00000-of-00001.parquet", [])}
    pattern, extra = layouts[task]
    for name, hub_name in (("train", "train"), ("val", "validation"), ("test", "test")):
        hub_fixtures.write(tmp_path, pattern.format(hub_name), parts[name])
    return get_task(task).loader(load_config([f"task={task}", "algo=zero_shot", f"data.source={tmp_path}", *extra]))


@pytest.mark.parametrize(("task", "generator"), [("cnn_dailymail", "grue.data.mini_news:news_rows"),
                                                 ("wmt16", "grue.data.mini_translation:translation_rows"),
                                                 ("narrativeqa", "grue.data.mini_stories:story_rows")])
def test_mini_rows_are_in_the_hub_schema(task, generator, tmp_path):
    import importlib

    module, name = generator.split(":")
    parts = getattr(importlib.import_module(module), name)(42)
    through_hub = _as_hub(task, tmp_path, parts)
    packaged = mini(task, "data.max_train=null", "data.max_val=null", "data.max_test=null", "data.prompt_suffix=''")
    assert through_hub == packaged


@pytest.mark.parametrize(("task", "generator", "pattern"), [
    ("commongen", "grue.data.mini_concepts:concept_rows", "data/{}-00000-of-00001.parquet"),
    ("totto", "grue.data.mini_tables:table_rows", "default/{}/0000.parquet"),
])
def test_mini_rows_of_hidden_reference_tasks_are_in_the_hub_schema(task, generator, pattern, tmp_path):
    import importlib

    module, name = generator.split(":")
    parts = getattr(importlib.import_module(module), name)(42)
    hub_fixtures.write(tmp_path, pattern.format("train"), parts["train"])
    hub_fixtures.write(tmp_path, pattern.format("validation"), parts["test"])  # scored as "test"
    extra = ["data.config=default"] if task == "totto" else []
    through_hub = get_task(task).loader(load_config([f"task={task}", "algo=zero_shot", f"data.source={tmp_path}",
                                                     "data.revision=null", *extra]))
    packaged = mini(task, "data.max_test=null", "data.prompt_suffix=''")
    key = {s.id.split("-", 1)[1]: (s.prompt, s.references, s.meta) for s in through_hub["test"]}
    assert key == {s.id.split("-", 1)[1]: (s.prompt, s.references, s.meta) for s in packaged["test"]}
