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
    assert "about 7:30 in all (range 6:40-8:20), from 2 finished imdb mini ppo run(s)" in line
    assert "scaled to this run's token budget" in line


def test_no_record_no_estimate_said_so(tmp_path):
    cfg = load_config(["task=imdb", "profile=mini", "algo=zero_shot", f"output_dir={tmp_path}"])
    assert estimate(cfg) is None
    assert "no finished imdb mini zero_shot run" in estimate_line(cfg)
    _record(tmp_path, "imdb-mini-zero_shot-seed0-ffff", "zero_shot", 75, 0, 0)  # nothing trained: taken as it was
    assert estimate(cfg).seconds == 75 and "about 1:15 in all, from 1 finished" in estimate_line(cfg)


def test_a_run_records_how_many_prompts_its_limit_cut(tiny_imdb_args, tiny_model_dirs):
    """Counted against the prompts the run saved with its predictions, tokenized here without truncation."""
    from transformers import AutoTokenizer

    from grue.run.runner import Run

    args = [*tiny_imdb_args, "algo=zero_shot", "model.max_prompt_length=12"]
    run_dir = Run(load_config(args), args).execute()
    record = json.loads((run_dir / "results.json").read_text())["prompt_truncation"]
    assert (record["max_prompt_length"], record["side"]) == (12, "left")
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_model_dirs.policy))  # the run's policy
    for split in ("val", "test"):
        prompts = [json.loads(line)["prompt"] for line in (run_dir / "predictions" / f"{split}.jsonl").open()]
        lengths = [len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p in prompts]
        assert record["splits"][split] == {"prompts": 6, "truncated": sum(n > 12 for n in lengths),
                                           "longest": max(lengths)}
    assert 0 < record["splits"]["test"]["truncated"] < 6 or 0 < record["splits"]["val"]["truncated"] < 6
    assert record["splits"]["train"]["prompts"] == 16
    import torch  # and the kind of machine that made it (grue/results/hardware.py)

    machine = json.loads((run_dir / "results.json").read_text())["hardware"]
    assert machine["cpu_capability"] == torch.backends.cpu.get_cpu_capability() and machine["accelerator"] is None


class _WordTokenizer:
    """One token per word, plus one end token when special tokens are asked for (as T5 adds </s>)."""

    def __call__(self, texts, add_special_tokens, truncation):
        assert truncation is False  # the count must see the whole prompt
        return {"input_ids": [[0] * (len(t.split()) + (1 if add_special_tokens else 0)) for t in texts]}


def test_a_prompt_of_exactly_the_limit_is_not_cut_and_seq2seq_counts_its_end_token():
    from types import SimpleNamespace

    from grue.run.truncation import count_for_run, truncation_line

    samples = [SimpleNamespace(prompt=" ".join(["w"] * n)) for n in (3, 4, 5)]
    causal = SimpleNamespace(model=SimpleNamespace(max_prompt_length=4, kind="causal", truncation_side="left"))
    counts = count_for_run(causal, _WordTokenizer(), {"test": samples})
    assert counts == {"test": {"prompts": 3, "truncated": 1, "longest": 5}}   # 5 > 4; 4 is kept whole
    seq2seq = SimpleNamespace(model=SimpleNamespace(max_prompt_length=4, kind="seq2seq", truncation_side="right"))
    assert count_for_run(seq2seq, _WordTokenizer(), {"test": samples})["test"]["truncated"] == 2  # 4+1, 5+1
    assert truncation_line(causal, counts) == ("prompts cut to model.max_prompt_length=4 tokens (from the left): "
                                               "test 1/3 (33%, longest 5); a longer limit keeps them whole")
    assert truncation_line(causal, {"test": {"prompts": 3, "truncated": 0, "longest": 4}}) == \
        "prompts: none longer than model.max_prompt_length=4"


def test_grue_plan_ends_with_the_time_estimate(tmp_path, tiny_model_dirs):
    from typer.testing import CliRunner

    from cli import app

    _record(tmp_path, "imdb-mini-ppo-seed0-aaaa", "ppo", 300, 200, 3072, policy=str(tiny_model_dirs.policy))
    result = CliRunner().invoke(app, ["plan", "task=imdb", "profile=mini", "algo=ppo", f"output_dir={tmp_path}",
                                      f"model.policy={tiny_model_dirs.policy}"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().splitlines()[-1].startswith("time: about 8:20 in all, from 1 finished")
