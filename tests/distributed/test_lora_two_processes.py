"""LoRA with data-parallel processes (torchrun, gloo, 2 CPU processes, the tiny models): a Supervised+PPO
run trains adapters in both phases, every rank ends each supervised epoch and each PPO iteration with
the same adapter tensors (gradients averaged over the ranks), and the frozen base never changes, weight
decay included."""
import json

from tests.distributed.test_two_processes import torchrun_two


def test_lora_supervised_and_ppo_on_two_processes_keep_the_ranks_adapters_identical(tiny_imdb_args, tmp_path):
    args = [*tiny_imdb_args, "algo=supervised_ppo", "model.lora.rank=4", "supervised.epochs=2",
            "supervised.learning_rate=1e-2", "supervised.weight_decay=0.1", "ppo.learning_rate=1e-2",
            "ppo.total_steps=72", f"output_dir={tmp_path / 'runs'}"]
    torchrun_two("lora_two_ranks.py", {"args": args, "out": str(tmp_path / "ranks.json")}, tmp_path)
    first, second = json.loads((tmp_path / "ranks.json").read_text())
    assert (first["rank"], second["rank"]) == (0, 1)
    steps = [(r["phase"], r["step"]) for r in first["records"]]
    assert steps == [("supervised", 0), ("supervised", 1), ("supervised", 2), ("rl", 1), ("rl", 2), ("rl", 3)]
    assert [(r["phase"], r["step"]) for r in second["records"]] == steps
    for a, b in zip(first["records"], second["records"]):
        assert a["adapters"] == b["adapters"] and a["base"] == b["base"]  # exactly the same on both ranks
    by_phase = {phase: [r for r in first["records"] if r["phase"] == phase] for phase in ("supervised", "rl")}
    for phase, records in by_phase.items():
        assert len({r["adapters"] for r in records}) == len(records), phase  # the adapters moved every time
        assert len({r["base"] for r in records}) == 1, phase  # the base stayed frozen
    # the RL phase starts from the supervised model merged, a base of its own
    assert by_phase["rl"][0]["base"] != by_phase["supervised"][0]["base"]
    runs = list((tmp_path / "runs").glob("imdb-mini-supervised_ppo-*"))
    assert len(runs) == 1 and (runs[0] / "results.json").exists() and (runs[0] / "model" / "adapter").is_dir()
