"""The one PPO/NLPO trainer and the one supervised trainer drive an encoder-decoder policy too:
on a tiny T5 a simple reward rises under PPO, NLPO runs with its mask, supervised loss falls."""
import copy

import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.nlpo import NLPOTrainer
from grue.train.rl.trainer import RLTrainer
from grue.train.supervised.trainer import SupervisedTrainer, seq2seq_batch

PROMPTS = ["The film was", "dogs run in", "A tedious", "I"]


def tiny_cfg(**overrides):
    base = {
        "seed": 0,
        "model": {"kind": "seq2seq", "value_model": "separate"},
        "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": 4, "max_new_tokens": 4},
        "ppo": {"learning_rate": 3e-3, "total_steps": 64 * 40, "steps_per_update": 64, "batch_size": 16,
                "epochs": 4, "rollout_batch_size": 16, "gamma": 0.99},
        "kl": {"init_coef": 0.0, "target": None},
        "nlpo": {"top_p": 0.9, "min_tokens_to_keep": 5, "update_every": 2},
        "supervised": {"learning_rate": 3e-3, "batch_size": 4, "epochs": 1, "max_length": 16},
    }
    return OmegaConf.merge(OmegaConf.structured(RunConfig), base, overrides)


class LetterShareReward:
    """Reward = share of characters of the decoded generation that are the letter 'e'."""

    name = "e_share"

    def __call__(self, samples, generations):
        return [sum(c == "e" for c in g) / max(1, len(g)) for g in generations]


def make_trainer(policy, cfg, nlpo):
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(PROMPTS)]
    trainer_class = NLPOTrainer if nlpo else RLTrainer
    return trainer_class(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), LetterShareReward(),
                         samples, Accelerator(cpu=True))


def mean_reward(trainer, n=3):
    return sum(trainer.step()["reward_mean"] for _ in range(n)) / n


def test_ppo_raises_a_simple_reward_on_an_encoder_decoder(tiny_seq2seq_policy):
    torch.manual_seed(0)
    trainer = make_trainer(tiny_seq2seq_policy, tiny_cfg(ppo={"learning_rate": 1e-2}), nlpo=False)
    before = mean_reward(trainer)
    for _ in range(8):
        trainer.step()
    after = mean_reward(trainer)
    assert after > before + 0.1, (before, after)


def test_nlpo_runs_on_an_encoder_decoder_and_refreshes_its_masking_model(tiny_seq2seq_policy):
    torch.manual_seed(0)
    trainer = make_trainer(tiny_seq2seq_policy, tiny_cfg(model={"value_model": "shared"}), nlpo=True)
    exp = trainer.collect()
    assert exp.rollout.action_mask is not None  # top-p 0.9 of a near-uniform model still masks some tokens
    stats = [trainer.step() for _ in range(2)]
    assert all(torch.isfinite(torch.tensor(s["loss/total"])) for s in stats)
    policy_weights = tiny_seq2seq_policy.model.state_dict()
    assert all(torch.equal(v, policy_weights[k]) for k, v in trainer.mask_model.state_dict().items())


def test_supervised_loss_decreases_on_a_few_pairs(tiny_seq2seq_policy):
    policy = tiny_seq2seq_policy
    pairs = [("translate: the film", "der Film"), ("translate: dogs run", "Hunde laufen"),
             ("translate: the park", "der Park"), ("translate: the sun", "die Sonne")]
    batch = seq2seq_batch(policy, pairs[:2], max_target=16)
    target = policy.tokenizer("der Film", add_special_tokens=False)["input_ids"]
    assert batch["labels"][0, :len(target) + 1].tolist() == target + [policy.eos_id]  # target + EOS
    assert torch.equal(batch["input_ids"], policy.encode([p for p, _ in pairs[:2]]).input_ids)  # as in RL
    trainer = SupervisedTrainer(tiny_cfg(), policy, pairs, Accelerator(cpu=True))
    losses = [trainer.train_epoch() for _ in range(15)]
    assert losses[-1] < 0.5 * losses[0], losses


def test_trainer_state_restores_the_encoder_decoder_critic_and_masking_model(tiny_seq2seq_policy):
    """Resume loads policy, critic (its encoder-decoder trunk included) and masking model back."""
    torch.manual_seed(0)
    trainer = make_trainer(tiny_seq2seq_policy, tiny_cfg(), nlpo=True)
    trainer.step()
    saved = {k: v.clone() for k, v in trainer.value.state_dict().items()}
    state = copy.deepcopy(trainer.state_dict())  # state_dict() holds live tensors
    with torch.no_grad():
        for module in (trainer.value, trainer.mask_model, tiny_seq2seq_policy.model):
            for p in module.parameters():
                p.add_(1.0)
    trainer.load_state_dict(state)
    assert all(torch.equal(v, saved[k]) for k, v in trainer.value.state_dict().items())
    assert all(torch.equal(v, state["mask_model"][k]) for k, v in trainer.mask_model.state_dict().items())
    assert trainer.iteration == 1
