"""PPO and NLPO must actually learn: on a tiny GPT-2 a simple reward rises within a few iterations."""
import pytest
import torch
from accelerate import Accelerator
from omegaconf import OmegaConf

from grue.config.schema import RunConfig
from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy
from grue.train.rl.nlpo import NLPOTrainer
from grue.train.rl.trainer import RLTrainer


def tiny_cfg(**overrides):
    cfg = OmegaConf.structured(RunConfig)
    base = {
        "seed": 0,
        "model": {"value_model": "separate"},
        "rollout": {"do_sample": True, "top_k": 0, "min_new_tokens": 4, "max_new_tokens": 4},
        "ppo": {"learning_rate": 3e-3, "total_steps": 64 * 40, "steps_per_update": 64, "batch_size": 16,
                "epochs": 4, "rollout_batch_size": 16, "gamma": 0.99},
        "kl": {"init_coef": 0.0, "target": None},
        "nlpo": {"top_p": 0.9, "min_tokens_to_keep": 5, "update_every": 2},
    }
    return OmegaConf.merge(cfg, base, overrides)


class TokenCountReward:
    """Reward = share of generated tokens that contain the letter 'e' (decoded text)."""

    name = "e_share"

    def __call__(self, samples, generations):
        return [sum(c == "e" for c in g) / max(1, len(g)) for g in generations]


def mean_reward(trainer, n=3):
    return sum(trainer.step()["reward_mean"] for _ in range(n)) / n


@pytest.mark.parametrize("algo,value_model", [("ppo", "separate"), ("nlpo", "shared")])
def test_rl_raises_a_simple_reward(tiny_causal_policy, algo, value_model):
    cfg = tiny_cfg(model={"value_model": value_model})
    policy = tiny_causal_policy
    torch.manual_seed(0)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    trainer_class = NLPOTrainer if algo == "nlpo" else RLTrainer
    trainer = trainer_class(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                            samples, Accelerator(cpu=True))
    before = mean_reward(trainer)
    for _ in range(12):
        trainer.step()
    after = mean_reward(trainer)
    assert after > before + 0.1, (before, after)


def exact_kl_to_reference(policy, ref, prompts, new_tokens=4):
    """KL(policy || reference) summed over the whole vocabulary, averaged over the positions of the
    reference's greedy continuations of `prompts`: an exact, sampling-free measure of drift."""
    enc = policy.tokenizer(prompts, return_tensors="pt", padding=True)
    with torch.no_grad():
        ids = ref.generate(**enc, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                           pad_token_id=policy.tokenizer.pad_token_id)
        mask = (ids != policy.tokenizer.pad_token_id).long()
        logp = torch.log_softmax(policy.model(ids, attention_mask=mask).logits, -1)
        logq = torch.log_softmax(ref(ids, attention_mask=mask).logits, -1)
    per_position = (logp.exp() * (logp - logq)).sum(-1)
    first = enc["input_ids"].shape[1] - 1  # the position that predicts the first new token
    return per_position[:, first:-1].mean().item()


def test_kl_penalty_holds_the_policy_near_the_reference(tiny_causal_policy):
    """With a large constant KL coefficient the policy barely moves; without it, it drifts.

    Drift is the exact KL on fixed text, not the trainer's sampled per-token estimate: over 2 prompts
    and 8 updates that estimate is noisy enough that beta 5 read above beta 0 on one machine while
    the exact KL was 4x lower. Measured with this test's drift() at seeds 0-3 (change the seed tuples
    below to reproduce): beta 0 gives 0.15-0.28, beta 5 gives 0.044-0.048."""
    prompts = ["The film was", "dogs run in"]
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(prompts)]
    policy = tiny_causal_policy
    start = {k: v.clone() for k, v in policy.model.state_dict().items()}

    def drift(beta, seed):
        torch.manual_seed(seed)
        ref = frozen_copy(policy.model)
        cfg = tiny_cfg(seed=seed, kl={"init_coef": beta, "target": 1.0, "k_beta": 0.0})  # constant beta
        trainer = RLTrainer(cfg, policy, ref, build_value(cfg, policy), TokenCountReward(), samples,
                            Accelerator(cpu=True))
        for _ in range(8):
            trainer.step()
        kl = exact_kl_to_reference(policy, ref, prompts)
        policy.model.load_state_dict(start)
        return kl

    held = sum(drift(5.0, seed) for seed in (0, 1)) / 2
    free = sum(drift(0.0, seed) for seed in (0, 1)) / 2
    assert held < 0.5 * free, (held, free)


def test_ppo_learns_a_terminal_reward_with_minibatches_smaller_than_an_episode(tiny_causal_policy):
    """The paper presets' regime: PPO minibatches (4 transitions) smaller than one episode (8 tokens) and
    a reward at the last token only. Cut from whole episodes, each minibatch was one episode whose
    advantages were normalised to mean zero, which erased the sequence-level reward (the share of e's
    stayed at its starting level); token-level minibatches with rollout-wide normalisation learn it."""
    cfg = tiny_cfg(rollout={"min_new_tokens": 8, "max_new_tokens": 8},
                   ppo={"learning_rate": 5e-3, "steps_per_update": 128, "batch_size": 4, "epochs": 1,
                        "rollout_batch_size": 32})
    policy = tiny_causal_policy
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    torch.manual_seed(0)
    trainer = RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), TokenCountReward(),
                        samples, Accelerator(cpu=True))
    rewards = [trainer.step()["reward_mean"] for _ in range(8)]
    before, after = sum(rewards[:2]) / 2, sum(rewards[-2:]) / 2
    assert after > before + 0.04, rewards
