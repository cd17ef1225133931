"""docs/extending.md runs as written: every file it shows is written to a temporary folder outside the
repository, then every `grue ...` line of its bash blocks is run there in order (the tiny GPT-2 standing
in for the mini profile's SmolLM2), and what the page promises is checked."""
from __future__ import annotations

import glob
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
BLOCK = re.compile(r"^```(\w+)(?: (\S+))?\n(.*?)^```", re.MULTILINE | re.DOTALL)
runner = CliRunner()


def blocks() -> list[tuple[str, str | None, str]]:
    return [(lang, path, body) for lang, path, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))]


def commands() -> list[tuple[dict[str, str], list[str]]]:
    """(environment, grue arguments) of every `grue` line of the bash blocks, comments cut."""
    out = []
    for lang, _, body in blocks():
        if lang != "bash":
            continue
        for line in body.splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            env = {}
            while "=" in words[0] and words[0] != "grue":
                key, value = words.pop(0).split("=", 1)
                env[key] = value
            assert words[0] == "grue", line
            out.append((env, words[1:]))
    return out


@pytest.fixture
def restore_algorithms():
    from grue import plugins
    from grue.train import registry as algo_registry

    algo_registry.algorithm_names()
    saved = dict(algo_registry._REGISTRY)
    yield
    algo_registry._REGISTRY.clear()
    algo_registry._REGISTRY.update(saved)
    plugins._loaded.discard("average_baseline")
    sys.modules.pop("average_baseline", None)


def test_the_page_shows_every_extension_point():
    written = {path for _, path, _ in blocks() if path}
    assert {"my_tasks/tone.yaml", "my_tasks/count.py", "my_tasks/tone_reward.py", "my_tasks/tone_metric.py",
            "my_lab/average_baseline.py"} <= written
    assert {args[0] for _, args in commands()} >= {"config", "run", "tasks", "score", "leaderboard"}


def test_every_example_runs(tmp_path, monkeypatch, tiny_model_dirs, clean_extensions, restore_algorithms):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRUE_TASKS_PATH", raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))
    for _, path, body in blocks():
        if path:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(body, encoding="utf-8")
    for env, args in commands():
        if "PYTHONPATH" in env:  # what the shell would do for a new process, done for this one
            sys.path.insert(0, str(tmp_path / env.pop("PYTHONPATH")))
        if args[0] == "run":
            args = [*args, f"model.policy={tiny_model_dirs.policy}", "threads=1"]
        args = [match for arg in args for match in (sorted(glob.glob(arg)) or [arg])]  # the shell's `*`
        result = runner.invoke(app, args, env={**env, "COLUMNS": "300"})
        assert result.exit_code == 0, f"grue {' '.join(args)}\n{result.output}{result.exception!r}"
        if args[0] == "compare":  # two runs of the worked task on the same prompts: paired, with a verdict
            assert "paired by prompt" in result.output and "**Verdict (test, 6 prompts):**" in result.output

    runs = tmp_path / "runs"
    made = {p.parent.name.rsplit("-", 1)[0] for p in runs.glob("*/results.json")}
    assert {"tone-mini-zero_shot-seed0", "tone-mini-ppo-seed0", "tone-mini-zero_shot-seed1",
            "count-mini-zero_shot-seed0", "tone-mini-average_baseline-seed0"} <= made
    zero_shot = next(runs.glob("tone-mini-zero_shot-seed0-*/predictions/test.jsonl")).read_text().splitlines()
    assert all("stopped_at" in row and "\n" not in row["generation"] for row in map(json.loads, zero_shot))  # stop: ["\n"]
    ppo = json.loads(next(runs.glob("tone-mini-ppo-seed0-*/results.json")).read_text())
    assert ppo["reward"] == "python:tone_reward.py:politeness"
    assert ppo["higher_is_better"]["python:tone_metric.py:says_polite_word"] is True
    board = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "## tone (test split)" in board and "| PPO | python:tone_reward.py:politeness |" in board
    scored = json.loads((tmp_path / "scored" / "mine.results.json").read_text())
    assert scored["status"] == "unsplit" and set(scored["metrics"]["none"]) == {"rouge1", "distinct_1"}
