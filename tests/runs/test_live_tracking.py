"""Live tracking: a tiny PPO run's TensorBoard event file, read back with TensorBoard's own reader, holds the
training and evaluation scalars and a sample table at each intermediate evaluation (the same fixed prompts,
with the generation, reward and KL written to logs/samples.jsonl); with W&B in offline mode the run directory
holds its offline W&B run with the tables; the progress line shows the last evaluation's headline metric."""
from __future__ import annotations

import importlib.util
import json

import pytest

from grue.train.rl.status_line import rl_status
from grue.run.tracking import fixed_sample, markdown_table, write_sample_log
from tiny_ppo import run_tiny_ppo

HAS_WANDB = importlib.util.find_spec("wandb") is not None


@pytest.fixture(scope="module")
def tracked_run(tiny_model_dirs, tmp_path_factory):
    """Three iterations, an evaluation after each (the third is the final one), three prompts in the table."""
    extra = ["ppo.total_steps=72", "tracking.samples=3"]
    if HAS_WANDB:
        extra += ["tracking.wandb=true", "tracking.wandb_mode=offline"]
    return run_tiny_ppo(tiny_model_dirs, tmp_path_factory.mktemp("tracking") / "runs", 0, *extra)


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_event_file_holds_scalars_and_the_sample_tables(tracked_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.util import tensor_util

    events = EventAccumulator(str(tracked_run / "tensorboard"), size_guidance={"scalars": 0, "tensors": 0})
    events.Reload()
    train = _lines(tracked_run / "logs" / "train.jsonl")
    evals = _lines(tracked_run / "logs" / "eval.jsonl")
    rewards = events.Scalars("reward_mean")
    assert [e.step for e in rewards] == [1, 2, 3]
    assert [e.value for e in rewards] == pytest.approx([r["reward_mean"] for r in train], rel=1e-6)
    val = events.Scalars("eval/val/sentiment")
    assert [e.step for e in val] == [r["iteration"] for r in evals if r["split"] == "val"] == [1, 2, 3]
    assert [e.value for e in val] == pytest.approx([r["metrics"]["sentiment"] for r in evals if r["split"] == "val"])
    assert [e.step for e in events.Scalars("eval/test/sentiment")] == [3]  # the final evaluation's test split

    tables = events.Tensors("samples/text_summary")
    assert [t.step for t in tables] == [1, 2]  # the intermediate evaluations
    samples = _lines(tracked_run / "logs" / "samples.jsonl")
    for table in tables:
        text = tensor_util.make_ndarray(table.tensor_proto).item().decode()
        rows = [r for r in samples if r["iteration"] == table.step]
        assert text == markdown_table(rows)
        assert text.splitlines()[0] == "| id | prompt | generation | reward | kl |" and len(text.splitlines()) == 5


def test_the_sample_log_shows_fixed_prompts_with_their_reward_and_kl(tracked_run, tiny_model_dirs):
    from grue.config import load_config
    from grue.rewards.registry import build_reward
    from tasks import get_task

    samples = _lines(tracked_run / "logs" / "samples.jsonl")
    cfg = load_config(_args(tracked_run))
    val = get_task("imdb").loader(cfg)["val"]
    by_id = {s.id: s for s in val}
    assert [r["iteration"] for r in samples] == [1, 1, 1, 2, 2, 2]
    first, second = samples[:3], samples[3:]
    assert [r["id"] for r in first] == [r["id"] for r in second] == [s.id for s in fixed_sample(val, 3)]
    assert all(r["prompt"] == by_id[r["id"]].prompt and isinstance(r["generation"], str) for r in samples)
    reward = build_reward(cfg)  # the run's reward, scored again independently of the run
    expected = reward([by_id[r["id"]] for r in samples], [r["generation"] for r in samples])
    assert [r["reward"] for r in samples] == pytest.approx(expected, abs=1e-5)
    assert all(abs(r["kl"]) < 5 for r in samples)  # a summed log-ratio over 6 tokens of a barely-moved policy
    assert any(r["kl"] != 0 for r in second)  # after two updates the policy differs from the reference


def _args(run_dir) -> list[str]:
    """The run's task data and reward model, from its config.yaml."""
    import yaml

    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    data = config["data"]
    return ["task=imdb", "profile=mini", "algo=ppo", f"data.max_train={data['max_train']}",
            f"data.max_val={data['max_val']}", f"data.max_test={data['max_test']}",
            f"reward.model={config['reward']['model']}"]


@pytest.mark.skipif(not HAS_WANDB, reason="wandb is not installed (pip install 'grue[wandb]')")
def test_wandb_offline_writes_its_run_directory_with_the_tables(tracked_run):
    [offline] = list((tracked_run / "wandb").glob("offline-run-*"))
    assert list(offline.glob("run-*.wandb"))  # the run's record, for `wandb sync`
    tables = sorted((offline / "files" / "media" / "table").glob("samples_*.table.json"))
    assert len(tables) == 2
    data = json.loads(tables[0].read_text())
    assert data["columns"] == ["id", "prompt", "generation", "reward", "kl"] and len(data["data"]) == 3


def test_a_resumed_run_lists_each_evaluation_once(tmp_path):
    log = tmp_path / "samples.jsonl"
    rows = [{"id": "a", "prompt": "p", "generation": "g", "reward": 0.5, "kl": 0.1}]
    write_sample_log(log, 1, "val", rows)
    write_sample_log(log, 2, "val", rows)
    write_sample_log(log, 2, "val", [{**rows[0], "reward": 0.7}])  # iteration 2 again, after a resume
    assert [(r["iteration"], r["reward"]) for r in _lines(log)] == [(1, 0.5), (2, 0.7)]


def test_the_progress_line_shows_the_headline_metric_of_the_last_evaluation():
    stats = {"reward_mean": 0.5, "kl": 0.01, "next_kl_coef": 0.1}
    last = {"perplexity": 33.0, "sentiment": 0.61}
    assert rl_status(stats, last, "sentiment").endswith("val sentiment 0.610")
    assert rl_status(stats, last, "cider").endswith("val perplexity 33.000")  # not evaluated: the first one
    assert "val" not in rl_status(stats, None, "sentiment")
