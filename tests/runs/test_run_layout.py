"""A run directory's layout is named once (grue/storage/run_layout.py) and its JSONL files have one reader
(issue 42): the reader's contract, RunDir agreeing with the layout, and a guard that no module of grue
spells a run's files out again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import grue
from grue.storage import run_layout
from grue.storage.run_layout import read_jsonl

# -- the reader ---------------------------------------------------------------------------------------------


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_missing_file_reads_as_no_rows(tmp_path):
    assert read_jsonl(tmp_path / "logs" / "train.jsonl") == []


def test_a_torn_last_line_is_skipped(tmp_path):
    path = write_bytes(tmp_path / "train.jsonl", b'{"iteration": 1}\n{"iteration": 2}\n{"iterat')
    assert read_jsonl(path) == [{"iteration": 1}, {"iteration": 2}]


def test_a_torn_line_glued_to_the_next_attempt_is_skipped_alone(tmp_path):
    """A killed run's torn line, then the resumed run's append on the same physical line."""
    path = write_bytes(tmp_path / "train.jsonl", b'{"iteration": 1}\n{"iter{"iteration": 2}\n{"iteration": 3}\n')
    assert read_jsonl(path) == [{"iteration": 1}, {"iteration": 3}]


def test_lines_that_are_not_objects_are_skipped(tmp_path):
    path = write_bytes(tmp_path / "eval.jsonl", b'[1, 2]\n"text"\n3\nnull\n\n{"split": "val"}\n')
    assert read_jsonl(path) == [{"split": "val"}]


def test_a_line_that_is_not_utf8_is_skipped_and_the_rest_kept(tmp_path):
    """Strict per line: the damaged line goes whole (no U+FFFD reaches a reader), its neighbours stay."""
    path = write_bytes(tmp_path / "val.jsonl", b'{"id": "a"}\n{"id": "b\xff\xfe"}\n{"id": "c"}\n')
    assert read_jsonl(path) == [{"id": "a"}, {"id": "c"}]


def test_escaped_non_ascii_text_reads_back_as_written(tmp_path):
    """What grue writes (json.dumps escapes non-ASCII) and what another UTF-8 writer makes read alike."""
    row = {"generation": "café \u2028 naïve", "scores": {"bleu": 0.5}}
    path = write_bytes(tmp_path / "val.jsonl", (json.dumps(row) + "\n" + json.dumps(row, ensure_ascii=False) + "\n")
                       .encode("utf-8"))
    assert read_jsonl(path) == [row, row]


def test_a_directory_in_place_of_the_file_is_an_error_not_an_empty_log(tmp_path):
    (tmp_path / "train.jsonl").mkdir()
    with pytest.raises(OSError):
        read_jsonl(tmp_path / "train.jsonl")


# -- RunDir is the layout -----------------------------------------------------------------------------------


def test_run_dir_paths_are_the_layouts(tmp_path):
    from grue.run.run_dir import RunDir

    run = RunDir(tmp_path / "imdb-mini-ppo-seed0-abcdef12")
    assert run.results == run_layout.results_file(run.path) == run.path / "results.json"
    assert run.train_log == run_layout.train_log(run.path) == run.path / "logs" / "train.jsonl"
    assert run.eval_log == run_layout.eval_log(run.path) == run.path / "logs" / "eval.jsonl"
    assert run.model_dir == run_layout.model_dir(run.path) == run.path / "model"
    assert run.checkpoints == run_layout.checkpoints_dir(run.path) == run.path / "checkpoints"
    assert run.predictions("test") == run_layout.predictions_file(run.path, "test")
    assert run.predictions("test") == run.path / "predictions" / "test.jsonl"
    assert run.critic_cache == run_layout.critic_cache_dir(run.path)
    assert run.status_file == run_layout.status_file(run.path) == run.path / "run.json"
    assert run.lock().path == run_layout.lock_file(run.path) == run.path / ".lock"


def test_run_dir_start_writes_the_layouts_files(tmp_path):
    from grue.run.run_dir import RunDir

    run = RunDir(tmp_path / "run")
    run.start("task: imdb\n", "f" * 64)
    assert run_layout.config_file(run.path).read_text() == "task: imdb\n"
    assert run_layout.config_hash_file(run.path).read_text() == "f" * 64 + "\n"
    assert json.loads(run_layout.status_file(run.path).read_text())["status"] == "running"


def test_the_reward_registrys_critic_cache_is_the_layouts():
    """grue/rewards/registry.py names the folder too (it builds the dense critic from a run directory)."""
    from grue.rewards.registry import CRITIC_CACHE

    assert CRITIC_CACHE == run_layout.CRITIC_CACHE


# -- no restatement ------------------------------------------------------------------------------------------

# A run's files spelled out in code: each would be a second place to change when the layout changes.
RESTATEMENTS = ('"predictions" /', '"logs" /', '"results.json"', '"config_hash.txt"')
# Where a literal may stay: the layout itself; a sweep's own books (<runs>/sweeps/<hash>/logs/<cell>.log), which
# are not a run directory.
ALLOWED = {"grue/storage/run_layout.py": RESTATEMENTS, "grue/sweep/state.py": ('"logs" /',)}


def restatements(package: Path) -> list[str]:
    """'path:line: text' of every literal of RESTATEMENTS under `package` outside ALLOWED."""
    found = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package.parent).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if any(s in line and s not in ALLOWED.get(name, ()) for s in RESTATEMENTS):
                found.append(f"{name}:{number}: {line.strip()}")
    return found


def test_no_module_restates_a_run_directorys_files():
    found = restatements(Path(grue.__file__).parent)
    assert not found, ("name a run's files through grue/storage/run_layout.py, not again:\n" + "\n".join(found))


def test_the_guard_finds_a_restatement(tmp_path):
    """The check above would see one put back (and the sweep's exception covers its logs only)."""
    package = tmp_path / "grue"
    (package / "board").mkdir(parents=True)
    (package / "sweep").mkdir()
    (package / "commands").mkdir()
    (package / "board" / "new.py").write_text('path = run / "predictions" / f"{split}.jsonl"\n')
    (package / "sweep" / "state.py").write_text('log = root / "logs" / "x.log"\nresults = run / "results.json"\n')
    (package / "commands" / "run.py").write_text('doc = path / "results.json"\n')
    assert restatements(package) == ['grue/board/new.py:1: path = run / "predictions" / f"{split}.jsonl"',
                                     'grue/commands/run.py:1: doc = path / "results.json"',
                                     'grue/sweep/state.py:2: results = run / "results.json"']
