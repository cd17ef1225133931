"""LoRA PPO and NLPO learn the tiny model's small problem, and a LoRA run cut short resumes to exactly the
metrics of an uninterrupted one (adapters, masking-model adapters and optimizer state in its checkpoints)."""
import json
import sys
from pathlib import Path

import pytest
import torch
from accelerate import Accelerator

from grue.data.sample import Sample
from grue.policy import lora
from grue.policy.load import build_value, reference_model
from grue.train.rl.nlpo import NLPOTrainer
from grue.train.rl.trainer import RLTrainer

sys.path.insert(0, str(Path(__file__).resolve().parent / "rl"))
from test_learning import TokenCountReward, mean_reward, tiny_cfg  # noqa: E402


@pytest.fixture
def headed_policy(tiny_tokenizer):
    """The tiny GPT-2 with weights drawn 15x wider than transformers' default (initializer_range 0.3).
    With the default 0.02 the frozen vocabulary head of a 32-wide model can shift a token's logit by
    less than one nat, so adapters under it cannot make any token likely; a pretrained head can."""
    from transformers import GPT2Config, GPT2LMHeadModel

    from grue.policy.causal import CausalPolicy

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tiny_tokenizer), n_positions=64, n_embd=32, n_layer=2, n_head=2,
                        bos_token_id=1, eos_token_id=1, pad_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0, initializer_range=0.3)
    return CausalPolicy(GPT2LMHeadModel(config).eval(), tiny_tokenizer, max_prompt_length=16)


@pytest.mark.parametrize("algo,value_model", [("ppo", "separate"), ("nlpo", "shared")])
def test_lora_rl_raises_a_simple_reward(headed_policy, algo, value_model):
    """The thresholds of tests/train/rl/test_learning.py (+0.1 in the share of e's over 12 iterations); a LoRA
    policy gets a higher learning rate, as LoRA recipes do (1e-2; full fine-tuning there: 3e-3)."""
    cfg = tiny_cfg(model={"value_model": value_model, "lora": {"rank": 8}}, ppo={"learning_rate": 1e-2})
    policy = headed_policy
    lora.add_adapters(policy.model, cfg.model.lora)
    torch.manual_seed(0)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    trainer_class = NLPOTrainer if algo == "nlpo" else RLTrainer
    trainer = trainer_class(cfg, policy, reference_model(policy.model), build_value(cfg, policy), TokenCountReward(),
                            samples, Accelerator(cpu=True))
    trained = {n for g in trainer.optimizer.param_groups for p in g["params"] for n, q in
               policy.model.named_parameters() if q is p}
    assert trained and all(lora.is_adapter_key(n) for n in trained)  # the base stays frozen
    before = mean_reward(trainer)
    for _ in range(12):
        trainer.step()
    after = mean_reward(trainer)
    assert after > before + 0.1, (before, after)


def _run(args):
    from grue.config import load_config
    from grue.run.runner import Run

    return Run(load_config(args), args).execute()


def test_a_lora_run_cut_short_resumes_to_the_uninterrupted_metrics(tiny_imdb_args, tmp_path, monkeypatch):
    """NLPO (its masking model refreshed every 2 iterations) with LoRA: stopped at iteration 3, the same
    command resumes from the iteration-2 checkpoint and ends with exactly the uninterrupted run's metrics.
    The checkpoints hold adapter tensors only; the final model/ is the merged model with the adapter."""
    from grue.train.rl import trainer as trainer_module

    args = [*tiny_imdb_args, "algo=nlpo", "nlpo.update_every=2", "model.lora.rank=4", "ppo.learning_rate=1e-2"]
    straight_dir = _run([*args, f"output_dir={tmp_path / 'a'}"])
    straight = json.loads((straight_dir / "results.json").read_text())
    untrained = json.loads((_run([*tiny_imdb_args, "algo=zero_shot"]) / "results.json").read_text())
    assert straight["metrics"] != untrained["metrics"]  # training moved the model, so resume has work to match

    real_step = trainer_module.RLTrainer.step
    seen = {}

    def crash_at_iteration_3(self):
        if self.iteration == 3:
            seen["state"] = self.state_dict()
            raise KeyboardInterrupt("simulated kill")
        return real_step(self)

    monkeypatch.setattr(trainer_module.RLTrainer, "step", crash_at_iteration_3)
    with pytest.raises(KeyboardInterrupt):
        _run([*args, f"output_dir={tmp_path / 'b'}"])
    assert all(lora.is_adapter_key(k) for k in seen["state"]["policy"])  # adapters only
    assert len(seen["state"]["mask_model"]) == len(seen["state"]["policy"])  # pi_psi: an adapter copy
    monkeypatch.setattr(trainer_module.RLTrainer, "step", real_step)
    resumed_dir = _run([*args, f"output_dir={tmp_path / 'b'}"])
    resumed = json.loads((resumed_dir / "results.json").read_text())
    assert resumed["metrics"] == straight["metrics"]  # exactly
    iterations = [json.loads(l)["iteration"] for l in (resumed_dir / "logs" / "train.jsonl").read_text().splitlines()]
    assert iterations == [1, 2, 3, 4, 5]
    assert (straight_dir / "model" / "config.json").is_file()
    assert (straight_dir / "model" / "adapter" / "adapter_config.json").is_file()


def test_supervised_then_ppo_with_lora_starts_rl_from_the_merged_supervised_model(tiny_imdb_args):
    """The warm start trains adapters too and saves its model merged; the RL run loads that as its base
    (its pi_0) and adds fresh adapters. Both model directories load with plain transformers."""
    from transformers import AutoModelForCausalLM

    path = _run([*tiny_imdb_args, "algo=supervised_ppo", "model.lora.rank=4"])
    doc = json.loads((path / "results.json").read_text())
    supervised_model = Path(doc["init_model"])
    assert supervised_model.name == "model" and "supervised" in supervised_model.parent.name
    for model_dir in (supervised_model, path / "model"):
        assert (model_dir / "adapter" / "adapter_config.json").is_file()
        assert not lora.lora_layers(AutoModelForCausalLM.from_pretrained(model_dir))
