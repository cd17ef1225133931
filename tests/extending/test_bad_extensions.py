"""Bad plug-ins are refused like any other bad input: one `error:` line naming the file or module and what
was expected, exit code 2; before any work wherever the mistake can be seen before calling the code."""
from __future__ import annotations

import textwrap

import pytest
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def refused(args: list[str], *expected: str, started: bool = False) -> str:
    """Exit 2 with one `error:` line; `started`: a run's progress line may come first (the mistake shows only
    when the code is called)."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output + repr(result.exception)
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("error:") and len(lines) == (2 if started else 1), result.output
    for text in expected:
        assert text in result.output, result.output
    return result.output


def edited(task_file, old: str, new: str):
    text = task_file.read_text()
    assert old in text
    task_file.write_text(text.replace(old, new))
    return task_file


def test_a_missing_task_file(user_task, tmp_path):
    refused(["config", f"task={tmp_path / 'nowhere' / 'task.yaml'}"], "task file", "not found")


@pytest.mark.parametrize("old, new, expected", [
    ("prompt: ", "promt: ", ["unknown key 'promt'", "did you mean 'prompt'"]),
    ("references: [gist, topic]", "references: 3", ["references is int 3", "a string or a list"]),
    ("  splits: {", "  split: {", ["data: unknown key 'split'", "'splits'"]),
    ("max_new_tokens: 6}\n  rollout", "max_tokens: 6}\n  rollout", ["unknown config key 'generation.max_tokens'",
                                                                    "(settings)"]),
    ("batch_size: 6}", "batch_size: six}", ["eval.batch_size", "algos.mini.ppo"]),
])
def test_a_task_file_with_an_unknown_key_or_a_wrong_type(user_task, old, new, expected):
    edited(user_task, old, new)
    refused(["config", f"task={user_task}", "profile=mini"], str(user_task), *expected)


def test_not_yaml(user_task):
    user_task.write_text("name: [unclosed\n")
    refused(["config", f"task={user_task}"], f"{user_task}:", "not valid YAML")


def test_data_lacking_the_reference_field(user_task):
    edited(user_task, "references: [gist, topic]", "references: [summary]")
    refused(["config", f"task={user_task}"], "lacks field(s) 'summary'", "train.jsonl", "gist, id, text, topic")


def test_a_metric_without_a_direction(user_task):
    metrics = user_task.parent / "my_metrics.py"
    metrics.write_text(metrics.read_text().replace("@metric(higher_is_better=True)\n", ""))
    refused(["config", f"task={user_task}", "profile=mini"], "python:my_metrics.py:topic_hit",
            "declares no direction", "higher_is_better")


@pytest.mark.parametrize("source, expected", [
    ("import no_such_module\n\ndef overlap(p, g, r, m):\n    return []\n",
     ["importing my_rewards.py failed", "ModuleNotFoundError", "no_such_module"]),
    ("def overlap(generations):\n    return []\n", ["overlap(generations)", "(prompts, generations, references, meta)"]),
    ("def other(p, g, r, m):\n    return []\n", ["has no attribute 'overlap'"]),
])
def test_a_reward_that_cannot_be_imported_or_called(user_task, source, expected):
    (user_task.parent / "my_rewards.py").write_text(source)
    refused(["config", f"task={user_task}", "profile=mini", "algo=ppo"], "python:my_rewards.py:overlap", *expected)


def test_a_reward_file_that_does_not_exist(user_task):
    refused(["config", f"task={user_task}", "reward=python:nowhere.py:score"], "nowhere.py not found")


BAD_RETURNS = {
    "short": ("return [0.0]", "returned 1 values for 4 generations"),
    "nan": ("return [float('nan')] * len(generations)", "returned nan at index 0"),
    "text": ("return 'good'", "returned a str"),
}


@pytest.mark.parametrize("kind", sorted(BAD_RETURNS))
def test_a_reward_returning_the_wrong_length_nan_or_not_a_list(user_task, tiny_model_dirs, tmp_path, kind):
    body, expected = BAD_RETURNS[kind]
    (user_task.parent / "my_rewards.py").write_text(textwrap.dedent(f'''\
        def overlap(prompts, generations, references, meta):
            {body}
    '''))
    runs = tmp_path / "runs"
    refused(["run", f"task={user_task}", "profile=mini", "algo=ppo", f"model.policy={tiny_model_dirs.policy}",
             f"output_dir={runs}", "threads=1"], "reward 'python:my_rewards.py:overlap'", expected,
            "nothing was started")  # tried on a few of its records before anything is built (issue 47)
    assert not list(runs.glob("*/results.json"))


def test_a_python_task_file_without_task(user_task):
    bad = user_task.parent / "not_a_task.py"
    bad.write_text("X = 1\n")
    refused(["config", f"task={bad}"], "defines TASK = TaskSpec(...)", "it defines no TASK")


def test_two_task_files_with_one_name(user_task, monkeypatch):
    twin = user_task.parent / "twin.yaml"
    twin.write_text(user_task.read_text())
    monkeypatch.setenv("GRUE_TASKS_PATH", str(user_task.parent))
    refused(["tasks"], "defines task 'echo_topic'", "give it another name")


def test_a_task_file_may_not_take_a_built_in_name(user_task):
    edited(user_task, "name: echo_topic", "name: imdb")
    refused(["config", f"task={user_task}"], "task 'imdb'", "tasks/imdb.py (built-in)")
