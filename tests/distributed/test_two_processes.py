"""Real 2-process runs on the CPU (torchrun, gloo) with the tiny models: the distributed evaluation of
the same generations gives exactly the one-process corpus metrics, and a 2-process PPO run completes
with one set of logs, checkpoints and results written by the main process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grue.config import config_hash, load_config
from grue.results.schema import validate_results
from grue.run.runner import Run

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def env():
    # PYTHONFAULTHANDLER: a rank killed by a signal (a C++ abort in a collective, say) still prints
    # every thread's Python stack, so a failure says where it happened
    return {**os.environ, "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1",
            "PYTHONFAULTHANDLER": "1"}


def ranks_output(stderr: str, limit: int = 6000) -> str:
    """What the ranks printed up to the failure, then torchrun's summary (which rank died of what),
    without torchrun's own traceback between them, which only says that a child failed."""
    launcher = stderr.rfind("Traceback (most recent call last):")
    if launcher < 0 or "torch/distributed/run.py" not in stderr[launcher:]:
        return stderr[-limit:]
    summary = stderr.find("Failures:", launcher)
    return stderr[:launcher][-limit:] + "\n[torchrun] " + (stderr[summary:] if summary > 0 else "")


def torchrun_two(script: str, spec: dict, tmp_path: Path) -> None:
    """Run one of this folder's rank scripts as 2 processes (torchrun, gloo) on `spec`; it must succeed."""
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    proc = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                           str(HERE / script), str(tmp_path / "spec.json")], cwd=REPO, env=env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, ranks_output(proc.stderr)


def test_two_process_evaluation_of_the_same_generations_gives_exactly_the_one_process_metrics(tiny_imdb_args,
                                                                                               tmp_path):
    args = [*tiny_imdb_args, "algo=zero_shot", "data.max_val=7"]  # 7: the ranks' blocks differ in size (4 + 3)
    one = Run(load_config(args), args).execute()
    predictions = [json.loads(l) for l in (one / "predictions" / "val.jsonl").read_text().splitlines()]
    spec = {"args": args, "out": str(tmp_path / "two.json"), "out_dir": str(tmp_path / "acc"),
            "generations": {p["id"]: p["generation"] for p in predictions}}
    torchrun_two("eval_two_ranks.py", spec, tmp_path)
    two = json.loads((tmp_path / "two.json").read_text())
    assert two["world"] == 2
    ids = [p["id"] for p in predictions]
    assert [r["ids"] for r in two["ranks"]] == [ids[:4], ids[4:]]  # each rank generated only its block
    assert two["generations"] == [p["generation"] for p in predictions]  # gathered back in sample order
    expected = json.loads((one / "results.json").read_text())["metrics"]["val"]
    assert two["metrics"] == expected  # exactly: every corpus metric computed once on all texts
    assert {"perplexity", "msttr", "entropy_2", "sentiment"} <= set(two["metrics"])


def test_a_two_process_ppo_run_completes_with_one_writer(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*tiny_imdb_args, "algo=ppo", f"output_dir={runs}", "num_processes=2"]
    proc = subprocess.run([sys.executable, "-m", "cli", "run", *args], cwd=REPO, env=env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    cfg = load_config(args)
    assert config_hash(cfg) == config_hash(load_config([*args[:-1], "num_processes=1"]))  # not part of identity
    (path,) = list(runs.glob("imdb-mini-ppo-*"))
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == [] and doc["config"]["num_processes"] == 2
    train = [json.loads(l) for l in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in train] == [1, 2, 3, 4, 5]  # one writer: no line twice
    assert all(r["tokens"] == 24 for r in train)  # 4 episodes x 6 tokens over both ranks, 2 each
    for split in ("val", "test"):
        assert len((path / "predictions" / f"{split}.jsonl").read_text().splitlines()) == 6
    assert not (path / "checkpoints").exists() and (path / "model" / "config.json").exists()


def test_ranks_collect_different_episodes_and_stay_in_step(tiny_imdb_args, tmp_path):
    """Rollouts sharded (disjoint episodes per rank), gradients averaged (identical weights after every
    update), and the KL controller and reward statistics global (identical on both ranks)."""
    args = [*tiny_imdb_args, "algo=nlpo", "nlpo.update_every=2", f"output_dir={tmp_path / 'runs'}"]
    spec = {"args": args, "out": str(tmp_path / "ranks.json")}
    torchrun_two("train_two_ranks.py", spec, tmp_path)
    first, second = json.loads((tmp_path / "ranks.json").read_text())
    assert (first["rank"], second["rank"]) == (0, 1) and len(first["records"]) == 5
    for a, b in zip(first["records"], second["records"]):
        assert a["iteration"] == b["iteration"] and len(a["ids"]) == len(b["ids"]) == 2
        assert not set(a["ids"]) & set(b["ids"])          # each rank its own share of the episodes
        assert a["checksum"] == b["checksum"]             # averaged gradients: the same weights everywhere
        assert (a["kl_coef"], a["reward_mean"]) == (b["kl_coef"], b["reward_mean"])
    assert len({r["checksum"] for r in first["records"]}) == 5  # and the weights did move
    assert (next((tmp_path / "runs").glob("imdb-mini-nlpo-*")) / "results.json").exists()


def test_a_killed_two_process_run_resumes_to_the_uninterrupted_metrics(tiny_imdb_args, tmp_path):
    """kill -9 of the whole 2-process run (launcher and workers, as a lost node), then the same command:
    the resumed run ends exactly where the uninterrupted 2-process run does (per-rank sampling noise is
    seeded by iteration, everything else is in the main process's checkpoint)."""
    import signal
    import time

    def args(runs):
        return [*tiny_imdb_args, "algo=ppo", "ppo.total_steps=240", "eval.save_every=2", "eval.eval_every=4",
                f"output_dir={runs}", "num_processes=2"]

    def run(runs):
        proc = subprocess.run([sys.executable, "-m", "cli", "run", *args(runs)], cwd=REPO, env=env(),
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc

    run(tmp_path / "straight")
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-m", "cli", "run", *args(killed)], cwd=REPO, env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while not any(killed.glob("imdb-mini-ppo-*/checkpoints/step-000004")) and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not any(killed.glob("imdb-mini-ppo-*/results.json")), "finished before the kill"
    resumed = run(killed)
    assert "resumed at iteration" in resumed.stderr
    (a,), (b,) = list((tmp_path / "straight").glob("imdb-*")), list(killed.glob("imdb-*"))
    assert json.loads((b / "results.json").read_text())["metrics"] == json.loads((a / "results.json").read_text())["metrics"]
    iterations = [json.loads(l)["iteration"] for l in (b / "logs" / "train.jsonl").read_text().splitlines()]
    assert iterations == list(range(1, 11))


def test_two_process_supervised_training_shards_each_batch_and_matches_one_process(tiny_imdb_args, tmp_path):
    """Data parallel, not replicated: each rank trains on its own half of every batch, and the averaged,
    token-weighted gradients reproduce the one-process run (same losses, same final weights)."""
    from safetensors.torch import load_file

    common = [*tiny_imdb_args, "algo=supervised", "supervised.batch_size=5", "supervised.epochs=2",
              "supervised.learning_rate=1e-3"]
    one = Run(load_config([*common, f"output_dir={tmp_path / 'one'}"]),
              [*common, f"output_dir={tmp_path / 'one'}"]).execute()
    args = [*common, f"output_dir={tmp_path / 'two'}"]
    spec = {"args": args, "out": str(tmp_path / "ranks.json")}
    torchrun_two("supervised_two_ranks.py", spec, tmp_path)
    first, second = json.loads((tmp_path / "ranks.json").read_text())
    assert len(first["steps"]) == len(second["steps"]) > 2
    for a, b in zip(first["steps"], second["steps"]):
        assert a and b and not set(a) & set(b)  # disjoint halves of the same batch
        assert len(a) - len(b) in (0, 1)
    two = next((tmp_path / "two").glob("imdb-mini-supervised-*"))

    def epoch_losses(run):
        return [json.loads(l)["loss"] for l in (run / "logs" / "train.jsonl").read_text().splitlines()]

    assert len(epoch_losses(one)) == 2
    assert epoch_losses(two) == pytest.approx(epoch_losses(one), rel=1e-4)
    w1, w2 = (load_file(str(next((run / "model").glob("*.safetensors")))) for run in (one, two))
    assert w1.keys() == w2.keys()
    policy_dir = next(a.split("=", 1)[1] for a in tiny_imdb_args if a.startswith("model.policy="))
    start = load_file(str(next(Path(policy_dir).glob("*.safetensors"))))
    moved = max(float((w1[k] - start[k]).abs().max()) for k in w1 if k in start)
    assert moved > 1e-3  # training really changed the weights
    assert max(float((w1[k] - w2[k]).abs().max()) for k in w1) < moved / 100
