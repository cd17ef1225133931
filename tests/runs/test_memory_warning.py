"""A run whose estimated peak memory is more than is free says so before it trains (grue/run/memory_check.py),
naming the lever of what it trains; one that fits, or that trains nothing, says nothing."""
from grue.commands.plan import estimate, model_facts
from grue.config import load_config
from grue.run import memory_check
from grue.run.memory_check import memory_warning
from grue.run.runner import Run


def said(capsys):
    out = capsys.readouterr()
    return " ".join((out.out + out.err).split())


def _cfg(tiny_model_dirs, algo, *extra):
    return load_config(["task=imdb", "profile=mini", f"algo={algo}", f"model.policy={tiny_model_dirs.policy}", *extra])


def test_the_warning_compares_the_estimate_with_what_is_free_and_names_the_lever(tiny_model_dirs, monkeypatch):
    dpo = _cfg(tiny_model_dirs, "dpo", "dpo.comparisons=auto")
    peak = estimate(dpo, model_facts(dpo)).peak
    monkeypatch.setattr(memory_check, "held_bytes", lambda device: 0)
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: peak - 1)
    warning = memory_warning(dpo, tiny_model_dirs.policy, "cpu")
    assert "dpo.micro_batch_size" in warning and "lower bound" in warning
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: peak)
    assert memory_warning(dpo, tiny_model_dirs.policy, "cpu") is None
    # what the process holds already (the loaded policy) is part of the estimate, not a further need
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: peak - 1000)
    monkeypatch.setattr(memory_check, "held_bytes", lambda device: 1000)
    assert memory_warning(dpo, tiny_model_dirs.policy, "cpu") is None
    # two processes on one CPU machine share its memory
    two = _cfg(tiny_model_dirs, "dpo", "dpo.comparisons=auto", "num_processes=2")
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: int(1.5 * peak))
    assert "for 2 processes on this machine" in memory_warning(two, tiny_model_dirs.policy, "cpu")
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: 0)
    assert "ppo.batch_size" in memory_warning(_cfg(tiny_model_dirs, "ppo"), tiny_model_dirs.policy, "cpu")
    assert memory_warning(_cfg(tiny_model_dirs, "zero_shot"), tiny_model_dirs.policy, "cpu") is None


def test_the_machine_s_free_memory_is_read(tiny_model_dirs):
    free = memory_check.free_bytes("cpu")
    assert free is None or free > 0
    assert memory_check.held_bytes("cpu") > 50 * 1024 ** 2  # this process has torch loaded


def test_a_run_warns_before_it_trains_and_goes_on(tiny_imdb_args, monkeypatch, capsys):
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: 0)
    monkeypatch.setattr(memory_check, "held_bytes", lambda device: 0)  # a test session's process outgrows the tiny run
    path = Run(load_config([*tiny_imdb_args, "algo=supervised"]), [*tiny_imdb_args, "algo=supervised"]).execute()
    words = said(capsys)
    assert "estimates this run's peak at" in words and "supervised.batch_size" in words
    assert (path / "results.json").exists()
    monkeypatch.setattr(memory_check, "free_bytes", lambda device: 1 << 50)
    Run(load_config([*tiny_imdb_args, "algo=ppo"]), [*tiny_imdb_args, "algo=ppo"]).execute()
    assert "estimates this run's peak" not in said(capsys)
