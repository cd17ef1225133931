"""A user's task folder, written to a temporary directory outside the repository as a researcher would
write it: small JSONL splits, a YAML task file, a reward and a metric of their own. Nothing under grue/
or tasks/ is edited; the fixture undoes what reading the folder added to the catalogue and registries."""
from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

TEXTS = [
    ("the film was a delight from start to finish", "a delight", "film"),
    ("a tedious boring mess that wastes its cast", "a boring mess", "cast"),
    ("i highly recommend this movie to everyone", "recommended", "movie"),
    ("the plot makes no sense and the acting is wooden", "wooden acting", "plot"),
    ("dogs run in the park while the sun sets", "dogs in the park", "dogs"),
    ("the sun sets over the park and the film ends", "sunset", "sun"),
]

TASK_YAML = textwrap.dedent('''\
    # A user's task: continue a sentence, scored on ROUGE-1 and a keyword metric of the user's own.
    name: echo_topic
    title: Say the topic word
    short: Echo
    description: six hand-written sentences
    data:
      splits: {train: data/train.jsonl, val: data/val.jsonl, test: data/test.jsonl}
    prompt: "Sentence: {text}"
    prompt_suffix: "\\nTopic:"
    references: [gist, topic]
    id: id
    meta: [topic]
    metrics:
      task: [rouge1, "python:my_metrics.py:topic_hit"]
      naturalness: [distinct_1]
    rewards: ["python:my_rewards.py:overlap"]
    settings:
      model: {kind: causal, padding_side: left, truncation_side: left, max_prompt_length: 24}
      generation: {do_sample: true, top_k: 0, min_new_tokens: 1, max_new_tokens: 6}
      rollout: {do_sample: true, top_k: 0, min_new_tokens: 6, max_new_tokens: 6}
    profiles:
      mini:
        data: {max_train: 12, max_val: 6, max_test: 6}
    algos:
      mini:
        ppo:
          ppo: {steps_per_update: 24, total_steps: 48, rollout_batch_size: 4, batch_size: 12,
                learning_rate: 1.0e-3, epochs: 1}
          eval: {eval_every: 2, save_every: 1, batch_size: 6}
''')

REWARD = textwrap.dedent('''\
    """Words of the generation found in its first reference."""


    def overlap(prompts, generations, references, meta):
        return [float(len(set(g.split()) & set(refs[0].split()))) for g, refs in zip(generations, references)]
''')

METRIC = textwrap.dedent('''\
    """1 when the generation names the sample's topic word (meta carries it)."""
    from grue.extend import metric


    @metric(higher_is_better=True)
    def topic_hit(prompts, generations, references, meta):
        return [1.0 if m["topic"] in g else 0.0 for g, m in zip(generations, meta)]
''')


def write_rows(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def write_task_folder(folder: Path) -> Path:
    """The folder of the user's task; returns the task file."""
    for split, copies in (("train", 2), ("val", 1), ("test", 1)):
        rows = [{"id": f"{split}{k}-{i}", "text": text, "gist": gist, "topic": topic}
                for k in range(copies) for i, (text, gist, topic) in enumerate(TEXTS)]
        write_rows(folder / "data" / f"{split}.jsonl", rows)
    (folder / "my_rewards.py").write_text(REWARD, encoding="utf-8")
    (folder / "my_metrics.py").write_text(METRIC, encoding="utf-8")
    task = folder / "echo_topic.yaml"
    task.write_text(TASK_YAML, encoding="utf-8")
    return task


@pytest.fixture
def clean_extensions():
    """Undo what reading task files and python: references added to the catalogue and registries."""
    import tasks
    from grue.extend import python_ref
    from grue.metrics import registry as metric_registry

    metric_registry.known_metrics()  # built-ins loaded before the snapshot
    metrics, files, dirs = dict(metric_registry._BY_NAME), dict(tasks._FILE_TASKS), list(python_ref._SEARCH_DIRS)
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    temp = tempfile.gettempdir()
    for name in set(sys.modules) - modules:  # the user's modules, imported from temporary folders
        if name.split(".")[0] in ("grue", "tasks", "cli"):  # grue's own, even from a checkout under the temp dir
            continue
        if (getattr(sys.modules[name], "__file__", None) or "").startswith(temp):
            del sys.modules[name]
    metric_registry._BY_NAME.clear()
    metric_registry._BY_NAME.update(metrics)
    tasks._FILE_TASKS.clear()
    tasks._FILE_TASKS.update(files)
    python_ref._SEARCH_DIRS[:] = dirs
    python_ref._load.cache_clear()


@pytest.fixture
def user_task(tmp_path, clean_extensions, monkeypatch) -> Path:
    """The user's task file in a temporary folder; the tests run from another temporary directory."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("GRUE_TASKS_PATH", raising=False)
    return write_task_folder(tmp_path / "my_tasks")
