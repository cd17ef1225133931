"""A supervised run with LoRA checkpoints its adapters (and their optimizer state) only, as an RL run with
LoRA does, and a run cut short resumes from them to exactly the uninterrupted run's metrics and final
merged model."""
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from grue.policy import lora


def _run(args):
    from grue.config import load_config
    from grue.run.runner import Run

    return Run(load_config(args), args).execute()


def _weights(model_dir: Path) -> dict[str, torch.Tensor]:
    return load_file(str(model_dir / "model.safetensors"))


def test_a_supervised_lora_run_cut_short_resumes_from_its_adapters_to_the_uninterrupted_result(
        tiny_imdb_args, tiny_model_dirs, tmp_path, monkeypatch):
    from grue.train.supervised import trainer as trainer_module

    args = [*tiny_imdb_args, "algo=supervised", "supervised.epochs=3", "model.lora.rank=4",
            "supervised.learning_rate=1e-2"]
    straight_dir = _run([*args, f"output_dir={tmp_path / 'a'}"])
    straight = json.loads((straight_dir / "results.json").read_text())
    base = _weights(Path(tiny_model_dirs.policy))
    merged = _weights(straight_dir / "model")
    assert set(merged) <= set(base)  # plain transformers names: the adapters are merged in
    assert any(not torch.equal(merged[k], base[k]) for k in merged)  # training moved the model

    real_epoch = trainer_module.SupervisedTrainer.train_epoch

    def killed_in_epoch_3(self, on_step=None):
        if self.epoch == 2:
            raise KeyboardInterrupt("simulated kill")
        return real_epoch(self, on_step)

    with monkeypatch.context() as patch:
        patch.setattr(trainer_module.SupervisedTrainer, "train_epoch", killed_in_epoch_3)
        with pytest.raises(KeyboardInterrupt):
            _run([*args, f"output_dir={tmp_path / 'b'}"])
    saved = sorted((tmp_path / "b").glob("**/checkpoints/step-*/state.pt"))
    assert [p.parent.name for p in saved] == ["step-000001", "step-000002"]
    policy_state = torch.load(saved[-1], map_location="cpu", weights_only=False)["policy"]
    # adapters only: every tensor is a LoRA factor, and none of the base's weights is there
    assert policy_state and all(lora.is_adapter_key(k) for k in policy_state)
    assert not set(policy_state) & set(base)
    assert sum(t.numel() for t in policy_state.values()) < sum(t.numel() for t in base.values()) / 4

    resumed_dir = _run([*args, f"output_dir={tmp_path / 'b'}"])
    resumed = json.loads((resumed_dir / "results.json").read_text())
    assert resumed["metrics"] == straight["metrics"]  # exactly
    epochs = [json.loads(line)["epoch"] for line in (resumed_dir / "logs" / "train.jsonl").read_text().splitlines()]
    assert epochs == [1, 2, 3]
    again = _weights(resumed_dir / "model")
    assert set(again) == set(merged) and all(torch.equal(again[k], merged[k]) for k in merged)
    assert (resumed_dir / "model" / "adapter" / "adapter_config.json").is_file()
