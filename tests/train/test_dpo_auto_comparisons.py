"""`dpo.comparisons=auto`: a DPO run makes its comparisons file from its own initial policy with the task's
reward as mock labeler, once per recipe, into the asset cache, whole or not at all, and records it.

IMDB mini on the tiny models (tests/conftest.py `tiny_imdb_args`): 8 queries of 4 six-token candidates from
the 16-sample train split, answered by the tiny sentiment classifier (`reward=sentiment`, the task's reward).
"""
from __future__ import annotations

import hashlib
import json

import pytest

from grue.board.numbers.run_facts import comparisons_of
from grue.config import ConfigError, config_hash, load_config
from grue.results.schema import validate_results
from grue.rewards.learned.comparisons import latest_answers, read_comparisons
from grue.run.runner import Run
from grue.train.offline.auto_recipe import RECIPE_FILE, comparisons_path

QUERIES = 8
AUTO = ["algo=dpo", "dpo.comparisons=auto", f"dpo.queries={QUERIES}", "dpo.batch_size=4", "dpo.learning_rate=1e-4",
        "dpo.warmup_steps=0", "dpo.save_every=1"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private asset cache, so the made files of one test are not another's."""
    root = tmp_path / "cache"
    monkeypatch.setenv("GRUE_CACHE", str(root))
    return root


def run(args):
    return Run(load_config(args), args).execute()


def test_auto_labels_agree_with_the_task_reward_and_the_run_records_the_file(tiny_imdb_args, cache):
    from grue.rewards.registry import build_named_reward
    from tasks import get_task

    args = [*tiny_imdb_args, *AUTO]
    cfg = load_config(args)
    path = comparisons_path(cfg)
    assert not path.exists() and cache in path.parents  # made by the run, in the asset cache
    run_dir = run(args)
    doc = json.loads((run_dir / "results.json").read_text())

    records = read_comparisons(path, required=True)
    queries, answers = [r for r in records if r.labeler is None], latest_answers(records)
    assert len(queries) == QUERIES and len(answers) == QUERIES and {q.k for q in queries} == {4}
    train = {s.id: s for s in get_task("imdb").loader(cfg)["train"]}
    assert {q.sample_id for q in queries} <= set(train)  # prompts of the train split
    reward = build_named_reward(cfg, "sentiment")  # the oracle, scored again here, apart from the labeler
    for answer in answers:
        scores = reward([train[answer.sample_id]] * answer.k, [c.text for c in answer.candidates])
        assert scores[answer.chosen] == max(scores), (answer.query_id, scores, answer.chosen)
        assert answer.labeler == "mock:sentiment"

    recipe = (path.parent / RECIPE_FILE).read_bytes()
    assert hashlib.sha256(recipe).hexdigest() == cfg.dpo.comparisons_sha256  # the hashed digest is the recipe's
    assert json.loads(recipe)["labeler"] == "sentiment" and json.loads(recipe)["queries"] == QUERIES
    assert validate_results(doc) == []
    assert doc["comparisons"] == {"made": True, "path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                                  "recipe_sha256": cfg.dpo.comparisons_sha256, "labelers": ["mock:sentiment"],
                                  "queries": QUERIES, "answers": QUERIES}
    log = [json.loads(line) for line in (run_dir / "logs" / "train.jsonl").read_text().splitlines()]
    trained = QUERIES - log[-1].get("heldout_comparisons", 0)
    assert trained > 0 and [r["step"] for r in log] == list(range(1, -(-trained // 4) + 1))  # it trained on the file
    fact = comparisons_of(doc)
    assert fact == f"made: {QUERIES} answers by mock:sentiment (sha256 {doc['comparisons']['sha256'][:12]})"


def test_a_second_run_with_the_same_recipe_reuses_the_file_without_sampling_or_labelling(tiny_imdb_args, cache,
                                                                                        monkeypatch):
    from grue.rewards.learned import labelers, queries

    first = [*tiny_imdb_args, *AUTO]
    run(first)
    made = comparisons_path(load_config(first))
    before = made.read_bytes()

    def refuse(*args, **kwargs):
        raise AssertionError("the made file was made again")

    monkeypatch.setattr(labelers, "label_file", refuse)
    monkeypatch.setattr(queries, "collect_queries", refuse)
    second = [*first, "dpo.beta=0.3"]  # another DPO setting, the same recipe: a new run, the same file
    assert config_hash(load_config(second)) != config_hash(load_config(first))
    assert comparisons_path(load_config(second)) == made
    doc = json.loads((run(second) / "results.json").read_text())
    assert made.read_bytes() == before and doc["comparisons"]["sha256"] == hashlib.sha256(before).hexdigest()


def test_supervised_dpo_makes_its_file_from_the_supervised_model(tiny_imdb_args, cache):
    dpo, warm = [*tiny_imdb_args, *AUTO], [*tiny_imdb_args, *AUTO, "algo=supervised_dpo"]
    doc = json.loads((run(warm) / "results.json").read_text())
    made = comparisons_path(load_config(warm))
    assert doc["comparisons"]["made"] and doc["comparisons"]["answers"] == QUERIES and made.is_file()
    assert json.loads((made.parent / RECIPE_FILE).read_text())["warm_start"] == "supervised"
    run(dpo)  # the initial policy's own file: other candidates from the same prompts
    texts = lambda path: [c.text for r in read_comparisons(path) if r.labeler is None for c in r.candidates]
    other = comparisons_path(load_config(dpo))
    assert other != made and texts(other) != texts(made)


def test_an_encoder_decoder_policy_makes_and_trains_on_its_file(tiny_imdb_args, tiny_t5_dir, cache):
    args = [*tiny_imdb_args, *AUTO, "algo=supervised_dpo", f"model.policy={tiny_t5_dir}", "model.kind=seq2seq",
            "model.truncation_side=right"]
    path = run(args)
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == [] and doc["comparisons"]["answers"] == QUERIES
    assert json.loads((path / "model" / "config.json").read_text())["model_type"] == "t5"
    assert (path / "logs" / "train.jsonl").read_text().strip()  # DPO steps on the made file


def test_a_labelling_killed_midway_leaves_no_file_and_the_next_run_makes_it_whole(tiny_imdb_args, cache, monkeypatch):
    from grue.rewards.learned import labelers

    args = [*tiny_imdb_args, *AUTO]
    made = comparisons_path(load_config(args))
    real = labelers.label_file

    def killed_after_one_chunk(labeler, queries, path, samples, chunk=16, progress=None):
        real(labeler, queries[:3], path, samples, chunk=chunk)  # three answers appended, then the kill
        raise KeyboardInterrupt("simulated kill while labelling")

    with monkeypatch.context() as patch:
        patch.setattr(labelers, "label_file", killed_after_one_chunk)
        with pytest.raises(KeyboardInterrupt):
            run(args)
    assert not made.exists() and not made.parent.exists()  # nothing at the cached path
    assert not [p for p in made.parent.parent.iterdir() if p.is_dir()]  # nor a half folder left behind
    run(args)
    records = read_comparisons(made, required=True)
    assert len([r for r in records if r.labeler is None]) == QUERIES and len(latest_answers(records)) == QUERIES
    assert len(records) == 2 * QUERIES  # each query once, each answer once: nothing carried over


def test_the_auto_hash_is_a_function_of_the_recipe(tiny_imdb_args, cache, tmp_path, monkeypatch):
    base = [*tiny_imdb_args, *AUTO]
    digest = load_config(base).dpo.comparisons_sha256
    assert digest and len(digest) == 64
    for change in ("dpo.queries=9", "dpo.labeler=meteor", "seed=1", "rollout.top_k=7", "reward.k=3",
                   "data.max_train=12", "reward.labeler_error_rate=0.2"):
        cfg = load_config([*base, change])
        assert cfg.dpo.comparisons_sha256 != digest, change  # a new file, so a new run
        assert config_hash(cfg) != config_hash(load_config(base)), change
    for change in ("dpo.beta=0.3", "dpo.max_steps=2", "eval.batch_size=3", "threads=2"):  # the same file
        assert load_config([*base, change]).dpo.comparisons_sha256 == digest, change
    warm = load_config([*tiny_imdb_args, *AUTO, "algo=supervised_dpo"])
    assert warm.dpo.comparisons_sha256 != digest  # sampled from the supervised run's model, not the initial one
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auto").write_text("not a comparisons file\n")  # a file named auto is ./auto, never `auto`
    assert load_config(base).dpo.comparisons_sha256 == digest


def test_auto_settings_are_checked_before_any_work(tiny_imdb_args, tmp_path):
    from dpo_fixtures import praise_comparisons
    from grue.run.preflight import PreflightError

    with pytest.raises(ConfigError, match=r"dpo\.labeler: unknown reward 'sentimnt'. Did you mean: sentiment"):
        load_config([*tiny_imdb_args, *AUTO, "dpo.labeler=sentimnt"])
    with pytest.raises(ConfigError, match=r"dpo\.labeler: distinct_2 is a corpus-level metric"):
        load_config([*tiny_imdb_args, *AUTO, "dpo.labeler=distinct_2"])
    with pytest.raises(ConfigError, match=r"dpo\.queries"):
        load_config([*tiny_imdb_args, *AUTO, "dpo.queries=0"])
    hand = praise_comparisons(tmp_path / "labels.jsonl", 4, task="imdb")
    with pytest.raises(PreflightError, match=r"dpo\.queries only say\(s\) how dpo\.comparisons=auto makes its file"):
        run([*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={hand}", "dpo.queries=12"])
    with pytest.raises(PreflightError, match=r"dpo\.comparisons=auto to have the run make one"):
        run([*tiny_imdb_args, "algo=dpo", "dpo.comparisons=null"])  # the mini default is auto; unset, it is refused


def test_hand_made_files_keep_their_hashes():
    """The committed DPO study runs (hand-made comparisons files) hash as they were recorded once their dpo group
    holds today's fields at their defaults, as a config loaded today does."""
    from dataclasses import fields
    from pathlib import Path

    from grue.config.identity import semantic_config
    from grue.train.offline.dpo_config import DPOConfig

    today = {f.name: f.default for f in fields(DPOConfig)}
    docs = sorted(Path(__file__).parents[2].glob("docs/studies/*/*-dpo-seed*/results.json"))
    # the board study's DPO runs made their comparisons (dpo.comparisons=auto) and record today's fields
    hand_made = [p for p in docs if json.loads(p.read_text())["config"]["dpo"].get("comparisons") != "auto"]
    assert len(hand_made) >= 6
    for path in hand_made:
        doc = json.loads(path.read_text())
        assert "queries" not in doc["config"]["dpo"]  # recorded before the auto settings existed
        config = {**doc["config"], "algo": doc["algo"], "dpo": {**today, **doc["config"]["dpo"]}}
        data = semantic_config(config)
        assert hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest() == doc["config_hash"], path
