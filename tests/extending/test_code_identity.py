"""A run's identity covers the content of the python: files it names (issue 47): editing the user's metric
makes a new setting, `grue run` trains and scores it anew and says why, the old run keeps its results and
their digests, and `grue rescore` scores the old run's generations with the current metric code."""
from __future__ import annotations

import hashlib
import json

import pytest
from typer.testing import CliRunner

from cli import app
from grue.config import config_hash, load_config
from user_task_fixtures import TEXTS

runner = CliRunner()
HIT = "python:my_metrics.py:topic_hit"
REWARD = "python:my_rewards.py:overlap"
# The fixed metric: a constant, so the new run's value is known without running anything.
METRIC_V2 = ('from grue.extend import metric\n\n\n@metric(higher_is_better=True)\n'
             'def topic_hit(prompts, generations, references, meta):\n    return [0.25 for _ in generations]\n')
# A third version: the number of words, recomputed by hand below from the saved generations.
METRIC_V3 = ('from grue.extend import metric\n\n\n@metric(higher_is_better=True)\n'
             'def topic_hit(prompts, generations, references, meta):\n    return [float(len(g.split())) for g in generations]\n')


def _ok(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _runs(root, algo):
    return {p.parent: json.loads(p.read_text()) for p in root.glob(f"echo_topic-mini-{algo}-seed0-*/results.json")}


def _common(user_task, tiny_model_dirs, runs):
    return [f"task={user_task}", "profile=mini", f"model.policy={tiny_model_dirs.policy}", "seed=0",
            f"output_dir={runs}", "threads=1"]


def test_editing_a_metric_file_is_a_new_run_and_the_old_keeps_its_digest(user_task, tiny_model_dirs, tmp_path):
    metric_file = user_task.parent / "my_metrics.py"
    runs, common = tmp_path / "runs", _common(user_task, tiny_model_dirs, tmp_path / "runs")
    old_digest = _sha(metric_file)
    before = load_config([*common, "algo=ppo"])
    assert dict(before.code_sha256) == {HIT: old_digest, REWARD: _sha(user_task.parent / "my_rewards.py")}
    _ok(["run", *common, "algo=ppo"])
    [(old_dir, old)] = _runs(runs, "ppo").items()

    metric_file.write_text(METRIC_V2, encoding="utf-8")
    after = load_config([*common, "algo=ppo"])
    assert config_hash(after) != config_hash(before)
    assert after.code_sha256[HIT] == _sha(metric_file) != old_digest
    out = _ok(["run", *common, "algo=ppo"])
    assert "already complete" not in out
    assert f"metric file my_metrics.py changed since run {old_dir}: this is a new run; `grue rescore run={old_dir}`" \
        in " ".join(out.split()), out

    found = _runs(runs, "ppo")
    assert old_dir in found and len(found) == 2
    [new_dir] = [d for d in found if d != old_dir]
    new = found[new_dir]
    assert (new_dir / "logs" / "train.jsonl").read_text().strip(), "the new setting did not train"
    assert new["metrics"]["test"][HIT] == pytest.approx(0.25)       # scored by the fixed code
    assert new["config"]["code_sha256"][HIT] == _sha(metric_file)
    # the old run is untouched: its digest, and its value is what the old code gives on its own generations
    again = json.loads((old_dir / "results.json").read_text())
    assert again == old and again["config"]["code_sha256"][HIT] == old_digest
    rows = [json.loads(line) for line in (old_dir / "predictions" / "test.jsonl").read_text().splitlines()]
    topics = {f"test0-{i}": topic for i, (_, _, topic) in enumerate(TEXTS)}
    by_hand = sum(1.0 if topics[r["id"]] in r["generation"] else 0.0 for r in rows) / len(rows)
    assert old["metrics"]["test"][HIT] == pytest.approx(by_hand)


def test_rescore_scores_the_old_generations_with_the_current_metric_code(user_task, tiny_model_dirs, tmp_path):
    metric_file = user_task.parent / "my_metrics.py"
    runs, common = tmp_path / "runs", _common(user_task, tiny_model_dirs, tmp_path / "runs")
    _ok(["run", *common, "algo=zero_shot"])
    [(old_dir, old)] = _runs(runs, "zero_shot").items()
    refused = runner.invoke(app, ["rescore", f"run={old_dir}", "threads=1"])
    assert refused.exit_code == 2 and "unchanged since it ran" in refused.output, refused.output

    metric_file.write_text(METRIC_V3, encoding="utf-8")
    _ok(["rescore", f"run={old_dir}", "threads=1"])
    found = _runs(runs, "zero_shot")
    [new_dir] = [d for d in found if d != old_dir]
    new = found[new_dir]
    assert new_dir.name.endswith(config_hash(load_config([*common, "algo=zero_shot"]))[:8])
    assert new["rescored_from"] == old_dir.name and new["config"]["code_sha256"][HIT] == _sha(metric_file)
    for split in ("val", "test"):
        rows = [json.loads(line) for line in (old_dir / "predictions" / f"{split}.jsonl").read_text().splitlines()]
        words = [float(len(r["generation"].split())) for r in rows]
        assert new["metrics"][split][HIT] == pytest.approx(sum(words) / len(words))
        assert new["metrics"][split]["rouge1"] == pytest.approx(old["metrics"][split]["rouge1"])  # same generations
        fresh = [json.loads(line) for line in (new_dir / "predictions" / f"{split}.jsonl").read_text().splitlines()]
        assert [r["scores"][HIT] for r in fresh] == pytest.approx(words)
    assert json.loads((old_dir / "results.json").read_text()) == old  # the old run keeps its results and digest
    # the current setting is now complete: `grue run` reuses it rather than generating again
    assert "already complete" in _ok(["run", *common, "algo=zero_shot"])


def test_a_run_without_python_code_records_no_digests(clean_extensions):
    cfg = load_config(["task=imdb", "profile=mini", "algo=ppo"])
    assert cfg.code_sha256 is None


def test_the_digests_cannot_be_set_by_hand(clean_extensions):
    result = runner.invoke(app, ["config", "task=imdb", "code_sha256={}"])
    assert result.exit_code == 2 and "code_sha256: grue sets it" in result.output, result.output


def test_a_reward_file_counts_only_for_runs_that_optimise_it(user_task):
    args = [f"task={user_task}", "profile=mini"]
    before = {algo: config_hash(load_config([*args, f"algo={algo}"])) for algo in ("zero_shot", "ppo")}
    reward_file = user_task.parent / "my_rewards.py"
    reward_file.write_text(reward_file.read_text() + "# tuned\n", encoding="utf-8")
    after = {algo: config_hash(load_config([*args, f"algo={algo}"])) for algo in ("zero_shot", "ppo")}
    assert after["zero_shot"] == before["zero_shot"] and after["ppo"] != before["ppo"]


def test_an_edited_reward_is_named_and_not_rescored(user_task, tiny_model_dirs, tmp_path):
    from grue.run.code_changes import changed_code_note

    runs, common = tmp_path / "runs", _common(user_task, tiny_model_dirs, tmp_path / "runs")
    _ok(["run", *common, "algo=ppo"])
    [(old_dir, _)] = _runs(runs, "ppo").items()
    reward_file = user_task.parent / "my_rewards.py"
    reward_file.write_text(reward_file.read_text() + "# tuned\n", encoding="utf-8")
    cfg = load_config([*common, "algo=ppo"])
    note = changed_code_note(cfg, config_hash(cfg))
    assert note == (f"reward file my_rewards.py changed since run {old_dir}: this is a new run; the old run trained "
                    "with the old code, so only a new run measures the new one")
    refused = runner.invoke(app, ["rescore", f"run={old_dir}", "threads=1"])
    assert refused.exit_code == 2 and "reward file my_rewards.py changed since run" in refused.output, refused.output
    assert "re-scoring cannot stand in for it" in refused.output and len(_runs(runs, "ppo")) == 1


def test_a_python_task_files_loader_module_is_part_of_its_identity(tmp_path, clean_extensions, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "count_task"
    folder.mkdir()
    (folder / "count_data.py").write_text(
        "from grue.data.sample import Sample\n\n\ndef load(cfg):\n"
        "    make = lambda split, n: [Sample(f'{split}-{i}', f'{i} then', (str(i + 1),)) for i in range(n)]\n"
        "    return {'train': make('train', 4), 'val': make('val', 2), 'test': make('test', 2)}\n")
    (folder / "count.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent))\n"
        "from count_data import load\nfrom grue.config.task_spec import TaskSpec\n\n"
        "TASK = TaskSpec(name='count', title='Count', source='test', task_metrics=('rouge1',), naturalness_metrics=(),"
        " loader=load)\n")
    cfg = load_config([f"task={folder / 'count.py'}", "profile=mini", "algo=zero_shot"])
    assert dict(cfg.code_sha256) == {"task.loader count_data.py": _sha(folder / "count_data.py")}
