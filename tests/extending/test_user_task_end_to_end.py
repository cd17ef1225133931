"""A task from a folder outside the repository, end to end: listed by `grue tasks`, run zero-shot and with
PPO on the tiny GPT-2 (its own metric mix, a user metric and a user reward), its predictions scored by
`grue score`, and its table on the exported leaderboard, apart from the GRUE score."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def _ok(args: list[str], env: dict[str, str] | None = None):
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def _results(runs, algo: str) -> tuple:
    [path] = [p for p in runs.glob(f"echo_topic-mini-{algo}-seed0-*/results.json")]
    return path.parent, json.loads(path.read_text())


def test_a_user_task_runs_scores_and_shows_on_the_board(user_task, tiny_model_dirs, tmp_path):
    folder, runs = user_task.parent, tmp_path / "runs"
    env = {"GRUE_TASKS_PATH": str(folder), "COLUMNS": "400"}

    listing = _ok(["tasks"], env).output
    assert "echo_topic" in listing and str(folder) in listing and "not in the GRUE score" in listing

    common = [f"task={user_task}", "profile=mini", f"model.policy={tiny_model_dirs.policy}", "seed=0",
              f"output_dir={runs}", "threads=1"]
    _ok(["run", *common, "algo=zero_shot"])
    _ok(["run", *common, "algo=ppo"])

    zero_dir, zero = _results(runs, "zero_shot")
    ppo_dir, ppo = _results(runs, "ppo")
    hit = "python:my_metrics.py:topic_hit"
    for doc in (zero, ppo):
        assert doc["task"] == "echo_topic" and doc["status"] == "complete"
        assert {"rouge1", hit, "distinct_1"} <= set(doc["metrics"]["test"])
        assert doc["higher_is_better"][hit] is True
        assert doc["config"]["task_sha256"] and doc["config"]["task_file"] == str(user_task)
    assert ppo["reward"] == "python:my_rewards.py:overlap"
    train_log = [json.loads(line) for line in (ppo_dir / "logs" / "train.jsonl").read_text().splitlines()]
    assert train_log, "PPO trained no iteration"

    # `grue eval` scores the PPO run's model on the task's mix; `grue sweep` plans the task's grid
    evals = tmp_path / "evals"
    _ok(["eval", f"task={user_task}", "profile=mini", f"model={ppo_dir}", f"output_dir={evals}", "threads=1"])
    [evaluated] = [json.loads(p.read_text()) for p in evals.glob("eval-echo_topic-mini-ppo-*/results.json")]
    assert evaluated["task"] == "echo_topic" and hit in evaluated["metrics"]["test"]
    plan = _ok(["sweep", f"task={user_task}", "algo=zero_shot,ppo", "seed=0,1", "profile=mini",
                f"model.policy={tiny_model_dirs.policy}", f"output_dir={runs}", "--dry-run"]).output
    assert "4 cells: 2 complete, 2 to run" in plan, plan  # the runs above are found again by their hash

    # the predictions carry their references: `grue score` reproduces the run's own ROUGE-1
    scored = tmp_path / "scored.json"
    _ok(["score", f"task={user_task}", "profile=mini", f"predictions={zero_dir / 'predictions' / 'test.jsonl'}",
         "split=test", f"out={scored}"])
    rescored = json.loads(scored.read_text())
    assert abs(rescored["metrics"]["test"]["rouge1"] - zero["metrics"]["test"]["rouge1"]) < 1e-9
    assert abs(rescored["metrics"]["test"][hit] - zero["metrics"]["test"][hit]) < 1e-9

    out = tmp_path / "board"
    _ok(["leaderboard", "export", "format=md,json,html", f"runs={runs}", f"out={out}"], env)
    markdown = (out / "leaderboard.md").read_text()
    table = markdown[markdown.index("## echo_topic (test split)"):]
    table = table[:table.index("\n## ")]
    assert "| PPO | python:my_rewards.py:overlap |" in table and "| topic_hit ↑ |" in table  # titled by its function
    assert "topic_hit = python:my_metrics.py:topic_hit" in table                             # named in full below
    assert "## Overall board — profile mini" not in markdown, "a user task entered the GRUE score"
    site = "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert "echo_topic" in site and "python:my_rewards.py:overlap" in site


def test_a_results_file_brings_its_declarative_task_file_along(user_task, tmp_path):
    """The board's reader can adopt a task from the YAML file a results config records (no GRUE_TASKS_PATH),
    never from a Python task file (that would run code named by a results file)."""
    import tasks

    assert tasks.find_task("echo_topic") is None
    spec = tasks.adopt_recorded_task({"task": "echo_topic", "task_file": str(user_task)})
    assert spec is not None and tasks.find_task("echo_topic") is spec and spec.origin == str(user_task)
    py = tmp_path / "other.py"
    py.write_text("raise SystemExit('must not run')\n")
    assert tasks.adopt_recorded_task({"task": "other", "task_file": str(py)}) is None
    assert tasks.adopt_recorded_task({"task": "gone", "task_file": str(tmp_path / "gone.yaml")}) is None
