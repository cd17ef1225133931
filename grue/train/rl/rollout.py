"""Collect one iteration of episodes: sample, score, and compute everything the update needs.

Everything here is computed once per iteration: the behaviour log-probs come from generation
itself, so the only extra forward passes are the frozen reference and the critic (and, when the sampler
runs at a lower precision than the learner, `rollout.precision`, one learner pass that recomputes them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import torch

from grue.data.sample import Sample
from grue.policy.batch import PromptBatch, Rollout
from grue.rewards.components import RewardComponents, score_episodes
from grue.train.rl.gae import gae
from grue.train.rl.kl import kl_penalised_rewards
from grue.train.rl.kl_temperature import kl_log_probs


@dataclass
class Experience:
    rollout: Rollout
    old_values: torch.Tensor   # [B, T]
    advantages: torch.Tensor   # [B, T]
    returns: torch.Tensor      # [B, T]
    task_reward: torch.Tensor  # [B]
    kl: torch.Tensor           # [B, T] per-token log-ratio against the reference
    generations: list[str]
    # What a critic-free method's loss reads (grue/train/rl/critic_free.py); PPO leaves them None.
    ref_logp: Optional[torch.Tensor] = None      # [B, T] the reference's log-probs: a KL term in the loss
    token_weight: Optional[torch.Tensor] = None  # [B] each of an episode's tokens' weight in the loss

    def episodes(self, rows: torch.Tensor, length: int) -> "Experience":
        """Episodes `rows`, cut to their first `length` steps (what a minibatch's forward pass needs)."""
        return Experience(self.rollout.select(rows).prefix(length), self.old_values[rows, :length],
                          self.advantages[rows, :length], self.returns[rows, :length], self.task_reward[rows],
                          self.kl[rows, :length], [self.generations[i] for i in rows.tolist()],
                          self.ref_logp[rows, :length] if self.ref_logp is not None else None,
                          self.token_weight[rows] if self.token_weight is not None else None)


def next_episode_count(missing: int, mean_length: float, cap: float) -> int:
    """Episodes to generate next for `missing` more transitions at `mean_length` tokens an episode
    (the horizon before anything was seen, then the mean so far), at most `cap` (one rollout batch)."""
    return max(1, int(min(cap, math.ceil(missing / max(mean_length, 1.0)))))


def concat_experiences(parts: Sequence[Experience], pad_id: int, padding_side: str) -> Experience:
    """One iteration's experience from its rollout rounds; per-step tensors padded with zeros."""
    if len(parts) == 1:
        return parts[0]
    length = max(p.rollout.actions.shape[1] for p in parts)

    def steps(name: str) -> torch.Tensor:
        return torch.cat([_pad_to(getattr(p, name), length, 0.0) for p in parts])

    return Experience(concat_rollouts([p.rollout for p in parts], pad_id, padding_side), steps("old_values"), steps("advantages"),
                      steps("returns"), torch.cat([p.task_reward for p in parts]), steps("kl"),
                      [g for p in parts for g in p.generations],
                      steps("ref_logp") if parts[0].ref_logp is not None else None,
                      torch.cat([p.token_weight for p in parts]) if parts[0].token_weight is not None else None)


def _pad_to(x: torch.Tensor, length: int, value: float | int | bool) -> torch.Tensor:
    if x.shape[1] == length:
        return x
    pad_shape = (x.shape[0], length - x.shape[1], *x.shape[2:])
    return torch.cat([x, torch.full(pad_shape, value, dtype=x.dtype, device=x.device)], dim=1)


def concat_rollouts(parts: Sequence[Rollout], pad_id: int, padding_side: str = "left") -> Rollout:
    """One rollout from several; prompts are padded on `padding_side` to a common width."""
    length = max(r.actions.shape[1] for r in parts)
    width = max(r.prompts.input_ids.shape[1] for r in parts)
    prompt_parts = [r.prompts.padded_to(width, pad_id, padding_side) for r in parts]
    masks = [r.action_mask for r in parts]
    action_mask = None
    if any(m is not None for m in masks):
        vocab = next(m for m in masks if m is not None).shape[-1]
        masks = [m if m is not None else torch.ones(*r.actions.shape, vocab, dtype=torch.bool, device=r.actions.device)
                 for m, r in zip(masks, parts)]
        action_mask = torch.cat([_pad_to(m, length, True) for m in masks])
    prompts = PromptBatch(torch.cat([p.input_ids for p in prompt_parts]),
                          torch.cat([p.attention_mask for p in prompt_parts]))
    sampler_logp = (torch.cat([_pad_to(r.sampler_logp if r.sampler_logp is not None else r.logp, length, 0.0)
                               for r in parts]) if any(r.sampler_logp is not None for r in parts) else None)
    states = (torch.cat([_pad_to(r.learner_states, length, 0.0) for r in parts])
              if all(r.learner_states is not None for r in parts) else None)
    return Rollout(prompts, torch.cat([_pad_to(r.actions, length, pad_id) for r in parts]),
                   torch.cat([_pad_to(r.valid, length, 0.0) for r in parts]),
                   torch.cat([_pad_to(r.logp, length, 0.0) for r in parts]),
                   torch.cat([_pad_to(r.raw_logp, length, 0.0) for r in parts]),
                   action_mask, parts[0].temperature, sampler_logp, states)


@dataclass
class Episodes:
    """One rollout round before advantages: what was sampled and what it earned. Every RL algorithm
    shares this part; how it becomes an Experience (the advantages) is the algorithm's own."""
    samples: Sequence[Sample]
    rollout: Rollout
    generations: list[str]
    task_reward: torch.Tensor   # [B] the reward of each finished episode
    token_reward: torch.Tensor  # [B] the same, or [B, T] under a dense reward (reward.dense)
    ref_logp: torch.Tensor      # [B, T] log-probs of the actions under the frozen reference
    # a metric mix's parts, for per-component normalisation (grue/rewards/components.py); None for other rewards
    components: Optional[RewardComponents] = None


@torch.no_grad()
def sample_rollout(policy: Any, samples: Sequence[Sample], gen_cfg: Any, batch_size: int, make_processors: Any = None,
                   seed: Optional[int] = None, iteration: Optional[int] = None) -> Rollout:
    """One round's episodes for `samples`, in their order, with what PPO records at each step.

    grue's decoder (`rollout.decoder=grue`): the whole round in as few decode batches as memory allows
    (grue.policy.decode), each episode's noise keyed by (seed, iteration, sample id, its copy number in
    `samples`), so the tokens do not depend on batching or on how the round is split over processes
    (grue.policy.sampling). Without a seed the keys come from torch's global generator.
    `decoder=generate`: generate() on `batch_size` rows at a time, noise from torch's global generator.
    `rollout.precision` other than fp32: the sampler decodes with a low-precision copy of the policy and the
    learner recomputes the log-probs the update reads, over the sampler's support (grue.policy.precision)."""
    from grue.policy.precision import precision_of, sampling_policy, with_learner_log_probs

    sampler = sampling_policy(policy, precision_of(gen_cfg))
    rollout = _sample_rollout(sampler, samples, gen_cfg, batch_size, make_processors, seed, iteration)
    return rollout if sampler is policy else with_learner_log_probs(policy, rollout)


def _sample_rollout(policy: Any, samples: Sequence[Sample], gen_cfg: Any, batch_size: int, make_processors: Any,
                    seed: Optional[int], iteration: Optional[int]) -> Rollout:
    from grue.policy.base import uses_grue_decoder

    prompts = policy.encode([s.prompt for s in samples])  # one encode: every chunk shares the padded width
    pad = policy.tokenizer.pad_token_id
    if not uses_grue_decoder(gen_cfg):
        parts = []
        for start in range(0, len(samples), batch_size):
            chunk = prompts.select(slice(start, start + batch_size))
            processors = make_processors(chunk) if make_processors else ()
            parts.append(policy.sample(chunk, gen_cfg, processors))
        return concat_rollouts(parts, pad)
    from grue.policy.decode import decode_many
    from grue.policy.sampling import episode_keys, keys_from_global_rng

    keys = (episode_keys(("rollout", int(seed), int(iteration or 0)), [s.id for s in samples]) if seed is not None
            else keys_from_global_rng(len(samples)))
    order, parts = [], []
    for rows, bucket, out in decode_many(policy, prompts, gen_cfg, keys, make_processors, record=True):
        order += rows
        parts.append(policy.rollout_of(bucket, out.actions, out.logp, out.raw_logp, out.allowed, gen_cfg))
    rollout = concat_rollouts(parts, pad, policy.padding_side)
    if order != list(range(len(samples))):
        rollout = rollout.select(torch.tensor(order).argsort())
    return rollout


@torch.no_grad()
def sample_episodes(policy: Any, samples: Sequence[Sample], gen_cfg: Any, batch_size: int, reward_fn: Any,
                    ref_model: Any, make_processors: Any = None, seed: Optional[int] = None,
                    iteration: Optional[int] = None, kl_temperature: Any = None, stops: Sequence[str] = ()) -> Episodes:
    """Sample one round of episodes (sample_rollout), score them, and compute the reference log-probs,
    both sides of the KL at `kl_temperature` (kl.temperature: grue/train/rl/kl_temperature.py). `stops`:
    each episode ends at its first stop string, in its text and in its actions (grue.policy.stop_strings)."""
    from grue.policy.stop_strings import cut_all, mask_after_stop

    rollout = sample_rollout(policy, samples, gen_cfg, batch_size, make_processors, seed, iteration)
    rollout = mask_after_stop(rollout, policy.tokenizer, policy.eos_id, stops)
    generations = [c.text for c in cut_all(policy.decode(rollout.actions, rollout.valid), stops)]
    scores, components = score_episodes(reward_fn, samples, generations)
    task_reward = torch.tensor(scores, dtype=torch.float32, device=rollout.actions.device)
    rollout, ref_logp = kl_log_probs(policy, ref_model, rollout, kl_temperature)
    token_reward = (reward_fn.token_rewards(samples, generations, task_reward, rollout, policy.tokenizer)
                    if hasattr(reward_fn, "token_rewards") else task_reward)  # [B, T] under reward.dense
    return Episodes(samples, rollout, generations, task_reward, token_reward, ref_logp, components)


@torch.no_grad()
def gae_experience(policy: Any, episodes: Episodes, value: Any, beta: float, gamma: float, lam: float,
                   estimator: str = "k1") -> Experience:
    """PPO's advantages: per-token KL-penalised rewards (`estimator`: kl.estimator), the critic's values,
    GAE (Eqs. 1, 4-5)."""
    rollout = episodes.rollout
    # a shared critic reads the learner's hidden states where a low-precision sampler's records were recomputed
    # (the same pass it would make itself); a separate critic runs its own trunk
    states = rollout.learner_states if getattr(value, "shared", False) else None
    old_values = value.values(policy, rollout, states) * rollout.valid
    rewards, kl = kl_penalised_rewards(episodes.token_reward, rollout.raw_logp, episodes.ref_logp, rollout.valid,
                                       rollout.last_index, beta, estimator)
    advantages, returns = gae(rewards, old_values, rollout.valid, gamma, lam)
    return Experience(rollout, old_values, advantages, returns, episodes.task_reward, kl, episodes.generations)

