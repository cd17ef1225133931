"""Every command, found by walking the CLI (so a new command is covered without editing this file):
`--help` works, and an unknown `key=value` argument is refused in one line with exit code 2, before any
work and without a traceback."""
from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def _commands(group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        found += _commands(command, path) if hasattr(command, "commands") else [path]  # a group: its commands
    return found


COMMANDS = _commands(typer.main.get_command(app))


def test_the_walk_finds_the_newer_commands():
    assert {("label", "import-csv"), ("human", "serve"), ("compare",), ("eval",)} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_works(command):
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_an_unknown_argument_is_refused_before_any_work(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # anything a command wrote by mistake would land here
    result = runner.invoke(app, [*command, "no_such_key=1"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 or "Usage" in result.output, result.output  # grue's one line, or the parser's usage
    assert list(tmp_path.iterdir()) == []


def _task_with_utf16_data(folder):
    """A user's task file whose test data was saved as UTF-16 (Excel's "Unicode text"): found when the task
    file is read, whatever command reads it."""
    (folder / "data").mkdir(parents=True)
    for split in ("train", "val", "test"):
        text = '{"id": "%s-0", "text": "a film", "ref": "film"}\n' % split
        (folder / "data" / f"{split}.jsonl").write_bytes(text.encode("utf-16" if split == "test" else "utf-8"))
    task = folder / "utf16_task.yaml"
    task.write_text("data:\n  splits: {train: data/train.jsonl, val: data/val.jsonl, test: data/test.jsonl}\n"
                    "prompt: 'Text: {text}'\nreferences: ref\nid: id\nmetrics: {task: [msttr]}\n")
    return task


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_task_file_with_badly_encoded_data_is_refused_by_every_command(command, tmp_path, monkeypatch):
    """The task-file surface (issue 45): a command that reads `task=` names the data file and its encoding;
    one that takes no task= refuses the key. One line, exit 2, nothing written, the user's files unchanged."""
    import tasks

    task = _task_with_utf16_data(tmp_path / "mine")
    before = {p: p.read_bytes() for p in (tmp_path / "mine").rglob("*") if p.is_file()}
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tasks, "_FILE_TASKS", dict(tasks._FILE_TASKS))  # what reading the file adds is undone
    result = runner.invoke(app, [*command, f"task={task}"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 or "Usage" in result.output, result.output
    if errors and "test.jsonl" in errors[0]:
        assert "UTF-16" in errors[0], errors[0]
    assert list(work.iterdir()) == [] and {p: p.read_bytes() for p in before} == before
