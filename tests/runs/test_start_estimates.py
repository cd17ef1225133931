"""Before a run starts: how many threads it takes when `threads=` is unset (never more than the cores free
now), and its wall time estimated from the finished runs of the same setting beside it (issue 47)."""
from __future__ import annotations

import json

import pytest
import torch

from grue.config import load_config
from grue.run.time_estimate import estimate, estimate_line
from grue.runtime import thread_default
from grue.runtime.process import configure_threads


@pytest.mark.parametrize("ceiling, cores, load, expected", [
    (4, 2, 0.4, 2),    # idle 2-core machine: both cores
    (2, 2, 5.3, 1),    # six jobs on two cores: one thread, never zero
    (8, 8, 2.6, 5),    # 8 cores, ~3 busy: the 5 free ones
    (1, 8, 0.0, 1),    # OMP_NUM_THREADS=1 (torch's count) stays the ceiling
])
def test_the_default_takes_the_free_cores_up_to_torchs_count(ceiling, cores, load, expected):
    assert thread_default.unloaded_threads(ceiling, cores, load) == expected


def test_unset_threads_follow_the_load_once_per_process_and_threads_n_wins(monkeypatch):
    monkeypatch.setattr(thread_default, "_CHOSEN", [])
    monkeypatch.setattr(thread_default, "usable_cores", lambda: 4)
    load = [3.2]
    monkeypatch.setattr(thread_default, "busy_cores", lambda: load[0])
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(4)
        assert configure_threads(load_config(["task=imdb", "profile=mini"])) == 1   # round(4 - 3.2) = 1
        load[0] = 0.0                      # the load this process made itself must not change its choice
        torch.set_num_threads(4)
        assert configure_threads(load_config(["task=imdb", "profile=mini"])) == 1
        assert configure_threads(load_config(["task=imdb", "profile=mini", "threads=3"])) == 3
    finally:
        torch.set_num_threads(before)


def _record(root, name: str, algo: str, wall: float, train_s: float, tokens: int, policy="packaged:smollm2-135m",
            status="complete") -> None:
    run = root / name
    run.mkdir(parents=True)
    doc = {"status": status, "task": "imdb", "profile": "mini", "algo": algo, "wall_time_s": wall,
           "config": {"model": {"policy": policy}},
           "cost": {"train_seconds": train_s, "train_generated_tokens": tokens}}
    (run / "results.json").write_text(json.dumps(doc), encoding="utf-8")


def test_the_estimate_scales_recorded_training_to_this_budget(tmp_path):
    cfg = load_config(["task=imdb", "profile=mini", "algo=ppo", f"output_dir={tmp_path}"])
    assert cfg.ppo.total_steps == 6144
    _record(tmp_path, "imdb-mini-ppo-seed0-aaaa", "ppo", 300, 200, 3072)  # 100 + 200 x 6144/3072 = 500 s
    _record(tmp_path, "imdb-mini-ppo-seed1-bbbb", "ppo", 400, 250, 6144)  # 150 + 250 = 400 s
    _record(tmp_path, "imdb-mini-ppo-seed2-cccc", "ppo", 9000, 10, 10, policy="gpt2")   # another model: not counted
    _record(tmp_path, "imdb-mini-ppo-seed3-dddd", "ppo", 9000, 10, 10, status="running")  # unfinished: not counted
    _record(tmp_path, "imdb-mini-nlpo-seed0-eeee", "nlpo", 9000, 10, 10)               # another algorithm
    found = estimate(cfg)
    assert (found.seconds, found.low, found.high, found.records, found.scaled) == (450, 400, 500, 2, True)
    line = estimate_line(cfg)
    assert "about 7:30 (range 6:40-8:20), from 2 finished imdb mini ppo run(s)" in line
    assert "scaled to this run's token budget" in line


def test_no_record_no_estimate_said_so(tmp_path):
    cfg = load_config(["task=imdb", "profile=mini", "algo=zero_shot", f"output_dir={tmp_path}"])
    assert estimate(cfg) is None
    assert "no finished imdb mini zero_shot run" in estimate_line(cfg)
    _record(tmp_path, "imdb-mini-zero_shot-seed0-ffff", "zero_shot", 75, 0, 0)  # nothing trained: taken as it was
    assert estimate(cfg).seconds == 75 and "about 1:15, from 1 finished" in estimate_line(cfg)
