"""A leaderboard row is one setting: an ablation is two rows, never two seeds of one, and never a duplicate."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from omegaconf import OmegaConf

from board_fixtures import ablation_pair, imdb_grid, results_doc, run_config, write_run
from grue.board.numbers.aggregate import aggregate, seed_frame
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.collect import collect
from grue.board.export import board_markdown
from grue.board.numbers.setting import setting_id, setting_items
from grue.config.load import config_hash, load_config
from grue.rewards.learned.comparisons import Candidate, Comparison, append_comparisons


def _values(paths, split: str, metric: str) -> pd.Series:
    return pd.Series([json.loads((p / "results.json").read_text())["metrics"][split][metric] for p in paths])


def test_an_ablation_pair_is_two_rows_labelled_by_the_differing_key(tmp_path):
    dirs = ablation_pair(tmp_path, seeds=3)
    found = collect([tmp_path])
    assert found.skipped == []  # same seeds, different kl.target: never duplicates
    agg = aggregate(seed_frame(found.runs))
    rows = agg[(agg["split"] == "test") & (agg["metric"] == "sentiment")].set_index("setting_label")
    assert sorted(rows.index) == ["kl.target=0.5", "kl.target=null"]  # output_dir differs too, but is no setting
    for target, label in ((0.5, "kl.target=0.5"), (None, "kl.target=null")):
        expected = _values(dirs[target], "test", "sentiment")
        assert rows.loc[label, "n"] == 3
        assert rows.loc[label, "mean"] == pytest.approx(expected.mean(), rel=1e-12)
        assert rows.loc[label, "std"] == pytest.approx(expected.std(), rel=1e-12)
    assert found.setting_keys == {("imdb", "ppo", "sentiment", "fixture:tiny-gpt2", "mini"): ["kl.target"]}


def test_steps_and_processes_differ_only_steps_splits_the_row(tmp_path):
    """num_processes is no setting (the config hash leaves it out); total_steps is."""
    for seed, (steps, procs) in enumerate([(6144, 1), (12288, 2)]):
        doc = results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.5 + seed}})
        doc["config"] = run_config("ppo", seed, **{"ppo.total_steps": steps, "num_processes": procs})
        write_run(tmp_path, doc)
    agg = aggregate(seed_frame(collect([tmp_path]).runs))
    assert sorted(agg["setting_label"]) == ["ppo.total_steps=12288", "ppo.total_steps=6144"]
    assert set(agg["n"]) == {1}  # two one-seed rows, not one "2 seeds" row


def test_a_duplicate_needs_the_whole_setting_to_agree(tmp_path):
    same = results_doc("imdb", "ppo", 0, {"test": {"sentiment": 0.6}})
    same["config"] = run_config("ppo", 0)
    write_run(tmp_path, same, "a")
    moved = dict(same, config=run_config("ppo", 0, output_dir="elsewhere", num_processes=4))
    write_run(tmp_path, moved, "b")  # where and how fast it ran: still the same run
    other = dict(same, config=run_config("ppo", 0, **{"kl.target": 0.1}))
    write_run(tmp_path, other, "c")
    found = collect([tmp_path])
    assert sorted(r.path.name for r in found.runs) == ["a", "c"]
    assert [s.path.name for s in found.skipped] == ["b"] and "same setting" in found.skipped[0].reasons[0]


def test_groups_the_algorithm_never_reads_do_not_split_zero_shot(tmp_path):
    for seed, lr in enumerate((3e-5, 1e-4)):
        doc = results_doc("imdb", "zero_shot", seed, {"test": {"sentiment": 0.5}}, reward=None)
        doc["config"] = run_config("zero_shot", seed, **{"ppo.learning_rate": lr})
        write_run(tmp_path, doc)
    agg = aggregate(seed_frame(collect([tmp_path]).runs))
    assert set(agg["n"]) == {2} and set(agg["setting_label"]) == {""}


def test_the_setting_is_the_config_hash_without_the_seed():
    """Settings agree exactly when config hashes agree once the seeds are made equal."""
    configs = [load_config(args) for args in (["task=imdb", "algo=ppo", "profile=mini", "seed=0"],
                                              ["task=imdb", "algo=ppo", "profile=mini", "seed=1"],
                                              ["task=imdb", "algo=ppo", "profile=mini", "seed=1", "kl.target=0.1"])]
    ids = [setting_id(setting_items({"config": OmegaConf.to_container(c, resolve=True)})) for c in configs]
    reseeded = [config_hash(OmegaConf.merge(c, {"seed": 0})) for c in configs]
    assert (ids[0] == ids[1]) == (reseeded[0] == reseeded[1]) is True
    assert (ids[1] == ids[2]) == (reseeded[1] == reseeded[2]) is False


def test_the_board_selects_a_setting_on_validation_and_says_which_keys_split_rows(tmp_path):
    imdb_grid(tmp_path, seeds=2, algos=("zero_shot",))
    ablation_pair(tmp_path, seeds=2)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    ppo = board.selection[board.selection["algo"] == "ppo"].iloc[0]
    assert ppo["setting_label"] == "kl.target=null" and ppo["n_candidates"] == 2  # the higher val sentiment
    assert "kl.target=0.5" in ppo["candidates"]
    assert any("kl.target" in note for note in board.notes)
    tested = board.tests[(board.tests["measure"] == "task_score") & (board.tests["b"] == "ppo")].iloc[0]
    assert tested["n_b"] == 2  # the selected setting's two seeds, not four pooled ones
    md = board_markdown(board)
    assert "| Setting |" in md and "kl.target=null" in md and "kl.target=0.5" in md


def test_a_run_without_a_config_is_labelled_as_such_and_names_no_keys(tmp_path):
    write_run(tmp_path, results_doc("imdb", "ppo", 0, {"test": {"sentiment": 0.6}}), "no-config")
    ablation_pair(tmp_path, seeds=1)
    found = collect([tmp_path])
    assert sorted(r.setting_label for r in found.runs) == ["config not recorded", "kl.target=0.5", "kl.target=null"]
    assert list(found.setting_keys.values()) == [["kl.target"]]


def test_a_group_absent_from_one_setting_is_named_by_the_key_that_tells_them_apart():
    """PPO beside PPO + critic: the label is reward.dense, not every critic.* key beside '(unset)'."""
    from grue.board.numbers.setting import setting_labels, telling_keys

    plain = {"kl.target": "6.0", "reward.name": '"sentiment"'}
    critic = {**plain, "reward.dense": '"critic"', "critic.model": '"packaged:smollm2-135m"', "critic.alpha_2": "0.2"}
    assert telling_keys([plain, critic]) == ["reward.dense"]
    assert setting_labels({"a": plain, "b": critic}) == {"a": "reward.dense=(unset)", "b": "reward.dense=critic"}
    # two critic runs that differ in the critic's model are told apart by it
    other = {**critic, "critic.model": '"gpt-4o-mini"'}
    assert telling_keys([plain, critic, other]) == ["critic.model", "reward.dense"]
    # a group that only some settings have, with nothing else differing, is still named
    assert telling_keys([plain, {**plain, "critic.model": '"m"'}]) == ["critic.model"]


def test_seeds_of_a_warm_started_setting_are_one_row_though_each_starts_from_its_own_run(tmp_path):
    """A warm start's init_model is its first run's model/ folder, named by that run's seed and hash: the
    board names it once for every seed, and a model that is no run's folder keeps its name."""
    from grue.board.numbers.setting import init_model_name
    from grue.results.model_card import setting_of

    docs = []
    for seed, run_hash in ((0, "9521c0cc"), (1, "04ddd3fc")):
        doc = results_doc("imdb", "supervised_ppo", seed, {"test": {"sentiment": 0.5 + 0.1 * seed}},
                          init_model=f"studies/x/imdb-mini-supervised-seed{seed}-{run_hash}/model")
        doc["config"] = run_config("supervised_ppo", seed)
        docs.append(doc)
        write_run(tmp_path, doc)
    agg = aggregate(seed_frame(collect([tmp_path]).runs))
    row = agg[(agg["split"] == "test") & (agg["metric"] == "sentiment")]
    assert len(row) == 1 and row["n"].iloc[0] == 2 and row["init_model"].iloc[0] == "imdb-mini-supervised run"
    assert setting_of(docs[0]) == setting_of(docs[1])  # model cards and submissions pool them the same way
    assert init_model_name("packaged:smollm2-135m") == "packaged:smollm2-135m"
    assert init_model_name("runs/my-model") == "runs/my-model"


def test_seeds_distilled_each_from_the_teacher_run_of_its_own_seed_are_one_row(tmp_path):
    """A study gives each seed's distillation the teacher run of the same seed (grpo.teacher.model=<run dir>):
    the board reads the path as the teacher run's kind, so the seeds pool into one row, while a different
    kind of teacher (another algorithm's runs, a packaged model) stays a setting of its own."""
    from grue.board.numbers.setting import run_reference_name

    teachers = {0: "studies/x/imdb-mini-dapo-seed0-c6b29748", 1: "studies/x/imdb-mini-dapo-seed1-eed4e121",
                2: "studies/x/imdb-mini-ppo-seed0-8d931f67"}
    for seed, teacher in teachers.items():
        doc = results_doc("imdb", "distill", seed, {"test": {"sentiment": 0.5 + 0.1 * seed}})
        doc["config"] = {**run_config("distill", seed), "grpo": {"teacher": {"model": teacher, "task_weight": 0.0}}}
        write_run(tmp_path, doc)
    agg = aggregate(seed_frame(collect([tmp_path]).runs))
    rows = agg[(agg["split"] == "test") & (agg["metric"] == "sentiment")]
    assert sorted(rows["n"]) == [1, 2], rows
    assert run_reference_name(teachers[0] + "/model") == "imdb-mini-dapo run"
    assert run_reference_name("packaged:smollm2-135m") == "packaged:smollm2-135m"


def test_made_comparisons_are_one_setting_across_seeds_and_a_given_file_is_its_own(tmp_path):
    """`dpo.comparisons=auto` digests a recipe that holds the seed, so each seed's digest differs: the board
    once split IMDB's three DPO seeds into three one-seed rows. What the recipe reads beyond the seed is
    in the setting already (dpo.queries here); a file the user gives stays part of it by its digest."""
    def setting(*args: str) -> str:
        cfg = load_config(["task=imdb", "algo=dpo", "profile=mini", *args])
        return setting_id(setting_items({"config": OmegaConf.to_container(cfg, resolve=True)}))

    seeds = [load_config(["task=imdb", "algo=dpo", "profile=mini", f"seed={s}"]).dpo.comparisons_sha256 for s in (0, 1)]
    assert seeds[0] != seeds[1]
    assert setting("seed=0") == setting("seed=1")
    assert setting("seed=0") != setting("seed=0", "dpo.queries=80")
    files = []
    for name, chosen in (("a.jsonl", 0), ("b.jsonl", 1)):
        query = Comparison("q0", "Review:", (Candidate("Great.", "s"), Candidate("Dull.", "s")), task="imdb")
        append_comparisons(tmp_path / name, [query, query.answer(chosen, "mock:sentiment")])
        files.append(setting("seed=0", f"dpo.comparisons={tmp_path / name}"))
    assert files[0] != files[1] and setting("seed=0", f"dpo.comparisons={tmp_path / 'a.jsonl'}") == files[0]
