"""Parameter sharding (shard=full|grad_op; accelerate=fsdp|zero3|zero2) for real, with 2 CPU processes
(torchrun, gloo, torch FSDP2): each rank stores half of every model, training follows the replicated
2-process run step for step, an interrupted sharded run resumes to the same weights, and the final
model of a sharded run loads like any other."""
import json
import subprocess
import sys

import pytest
from test_two_processes import REPO, env, torchrun_two

from grue.config import config_hash, load_config


def sharded_run(args, tmp_path, name, **extra):
    out = tmp_path / f"{name}.json"
    torchrun_two("sharded_two_ranks.py", {"args": [*args, f"output_dir={tmp_path / name}"], "out": str(out),
                                          **extra}, tmp_path)
    return json.loads(out.read_text())


def training(ranks):
    """Rank 0's per-iteration records (ranks agree on every gathered quantity), and both ranks' storage."""
    records = [r for r in ranks[0]["records"] if "iteration" in r]
    assert [r["checksum"] for r in records] == [r["checksum"] for r in ranks[1]["records"] if "iteration" in r]
    return records, [[r["local"] for r in rank["records"] if "iteration" in rank] for rank in ranks]


@pytest.mark.parametrize("kind", ["causal", "seq2seq"])
def test_sharded_training_follows_the_replicated_run_and_stores_half_per_rank(tiny_imdb_args, tiny_t5_dir, tmp_path,
                                                                               kind):
    """NLPO with a separate critic: policy, critic, reference and masking model all sharded."""
    args = [*tiny_imdb_args, "algo=nlpo", "nlpo.update_every=2", "model.value_model=separate"]
    if kind == "seq2seq":  # T5: encoder and decoder blocks, embeddings shared by both and the head
        args += [f"model.policy={tiny_t5_dir}", "model.kind=seq2seq", "model.truncation_side=right"]
    assert config_hash(load_config([*args, "shard=full"])) == config_hash(load_config(args))  # same computation
    replicated, _ = training(sharded_run(args, tmp_path, "replicated"))
    sharded, _ = training(sharded_run([*args, "shard=full"], tmp_path, "sharded"))
    assert len(sharded) == len(replicated) == 5
    for a, b in zip(replicated, sharded):
        assert not a["sharded"] and b["sharded"]
        assert a["local"] == a["total"] and b["total"] == a["total"]
        assert b["local"] <= a["total"] / 2 + 64  # half of every tensor (FSDP pads uneven splits)
        assert b["checksum"] == pytest.approx(a["checksum"], rel=1e-5)  # the same updates, summed in another order
        assert b["reward_mean"] == pytest.approx(a["reward_mean"], abs=1e-5)
        assert b["kl"] == pytest.approx(a["kl"], abs=1e-5)


def test_an_interrupted_sharded_run_resumes_to_the_uninterrupted_weights(tiny_imdb_args, tmp_path):
    args = [*tiny_imdb_args, "algo=ppo", "shard=grad_op"]
    straight, _ = training(sharded_run(args, tmp_path, "straight"))
    ranks = sharded_run(args, tmp_path, "resumed", interrupt_after=3)
    (stop,) = [r for r in ranks[0]["records"] if "interrupted" in r]
    assert stop["interrupted"] == "step-000003"
    # the main process's state, and each process's own shards of the weights and optimizer state
    assert {"COMPLETE", "state.pt", "shards/.metadata", "shards/__0_0.distcp", "shards/__1_0.distcp"} <= set(stop["files"])
    resumed, _ = training(ranks)
    assert [r["iteration"] for r in resumed] == [1, 2, 3, 4, 5]  # 4 and 5 after the restart
    assert resumed[-1]["checksum"] == pytest.approx(straight[-1]["checksum"], rel=1e-9)
    (first,), (second,) = (list((tmp_path / n).glob("imdb-mini-ppo-*")) for n in ("straight", "resumed"))
    metrics = [json.loads((p / "results.json").read_text())["metrics"] for p in (first, second)]
    assert metrics[0] == metrics[1]


def test_a_sharded_supervised_then_ppo_run_from_the_command_line(tiny_imdb_args, tmp_path):
    """`grue run ... num_processes=2 shard=full`: supervised warm start and PPO both sharded; the final
    models are whole Hugging Face directories."""
    from transformers import AutoModelForCausalLM

    from grue.train.supervised.trainer import training_pairs
    from tasks import get_task

    runs = tmp_path / "runs"
    args = [*tiny_imdb_args, "algo=supervised_ppo", f"output_dir={runs}", "num_processes=2", "shard=full"]
    task = get_task("imdb")
    pairs = len(training_pairs(task, task.loader(load_config(args))["train"]))
    # a last batch of one pair: rank 1 has nothing to learn from and must still join the sharded step
    args.append(f"supervised.batch_size={next(b for b in range(2, pairs) if pairs % b == 1)}")
    proc = subprocess.run([sys.executable, "-m", "cli", "run", *args], cwd=REPO, env=env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "parameters sharded over 2 processes (shard=full)" in proc.stdout + proc.stderr
    for algo in ("supervised", "supervised_ppo"):
        (path,) = list(runs.glob(f"imdb-mini-{algo}-*"))
        assert json.loads((path / "run.json").read_text())["status"] == "complete"
        model = AutoModelForCausalLM.from_pretrained(path / "model")
        reference = AutoModelForCausalLM.from_pretrained(load_config(args).model.policy)
        assert model.state_dict().keys() == reference.state_dict().keys()
        moved = sum(float((a - b).abs().sum()) for a, b in zip(model.state_dict().values(),
                                                                reference.state_dict().values()))
        assert moved > 0  # trained, whole tensors (not shards, not the initial weights)


def test_shard_with_one_process_says_there_is_nothing_to_shard_over_and_runs_whole(tiny_imdb_args, capsys):
    from grue.run.runner import Run

    args = [*tiny_imdb_args, "algo=ppo", "shard=full", "ppo.total_steps=24"]
    path = Run(load_config(args), args).execute()
    captured = capsys.readouterr()
    assert "shard=full needs several processes" in " ".join((captured.out + captured.err).split())
    assert json.loads((path / "run.json").read_text())["status"] == "complete"


def test_a_checkpoint_resumes_only_with_the_layout_it_was_written_in():
    from grue.train.checkpoint import check_checkpoint_layout

    check_checkpoint_layout({"sharded": True}, sharded=True)
    check_checkpoint_layout({"policy": {}}, sharded=False)
    with pytest.raises(RuntimeError, match="written sharded and cannot be resumed unsharded"):
        check_checkpoint_layout({"sharded": True}, sharded=False)
    with pytest.raises(RuntimeError, match="written unsharded and cannot be resumed sharded"):
        check_checkpoint_layout({"policy": {}}, sharded=True)
