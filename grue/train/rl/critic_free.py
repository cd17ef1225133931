"""What every critic-free method does the same way: groups of samples per prompt, no critic, and a
PPO-clip loss whose per-token average is the method's own.

A method subclasses `CriticFreeTrainer` and says three things: how many samples it draws per prompt
(`group_size`), how rewards become per-token advantages (`token_advantages`), and how its loss
averages over tokens and sequences (`aggregation`). The update trains on the advantages as returned, unless
the method asks for a global normalisation (`advantage_normalisation = "rollout"`, REINFORCE++'s; the
contract is RLTrainer's). The KL regulariser is not a method's own: every method reads the `kl` group
(where the term sits, its estimator, its controller), so methods compare under the same regulariser
unless a run sets it otherwise. Everything else, the rollout, minibatches, checkpoints and processes, is
RLTrainer's.

Groups. The G samples of a prompt are G consecutive episodes of one rollout round (`_my_samples`), so a
round never splits a group; only the run's last iteration may cut its last group short, so that the run
stops at its token budget whatever G is (RLTrainer.collect), and `by_group` takes the statistics of such a
group over the samples it has. Minibatches may cut a group
(the advantages are computed before), and the loss weights count the whole iteration's sequences and
tokens over every process, so no minibatch or process count changes what an episode weighs.

Loss options. Every method takes the options of its group's `loss` sub-group (grue/train/rl/loss_options.py:
the clip's shape, the ratio's level, clipping the weight instead of the surrogate, dynamic sampling and
overlong shaping); DAPO, GSPO and CISPO are presets of them (grue/train/algorithms.py). Dynamic sampling on a
fixed token budget: the groups whose task rewards are all equal leave the update (its weights are renormalised
over the groups kept), their tokens stay spent, and no extra round is drawn to refill the batch (the run's
budget is in generated tokens, so a refill would only move tokens from later iterations to this one); the
dropped groups are counted in the log (`dynamic_sampling/dropped_groups`, `.../dropped_episodes`).

Rewards. `loss.reward_normalisation=per_component` standardises each component of a metric-mix reward within
its group before the weighted sum (GDPO; grue/train/rl/multi_reward.py) and `loss.whiten_advantages` whitens
the advantages over the iteration (GDPO's last step); the `teacher` sub-group adds a frozen teacher's per-token
reverse-KL term to every token's advantage (on-policy distillation; grue/train/rl/teacher.py). Both change the
reward the method's own advantage starts from, or add to it, so every method takes them.

The NLPO mask composes: `grue/train/rl/masked.py` mixes NLPOTrainer's hooks into each method.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

import torch

from grue.data.sample import Sample
from grue.errors import ConfigError
from grue.runtime.distributed import global_sum
from grue.train.rl.kl import kl_estimate, kl_penalised_rewards
from grue.train.rl.kl_temperature import kl_temperature, tempered_log_probs
from grue.train.rl.loss_options import informative_groups, overlong_penalty
from grue.train.rl.mismatch import sampler_weights
from grue.train.rl.policy_gradient import episode_weights, group_normalised, minus_baseline, weighted_clipped_loss
from grue.train.rl.ppo_loss import PPOLosses
from grue.train.rl.rollout import Episodes, Experience
from grue.train.rl.critic_free_config import LossOptions, TeacherOptions
from grue.train.rl.multi_reward import per_component_normalised
from grue.train.rl.teacher import load_teacher, reverse_kl_advantage
from grue.train.rl.trainer import RLTrainer, _check_finite, whiten_over_processes


class CriticFreeTrainer(RLTrainer):
    uses_critic = False
    advantage_normalisation = None  # the method's advantages as returned; the ppo group's normalisation is PPO's
    _kl_loss_total, _kl_loss_steps = 0.0, 0  # the KL term's sum over one update's minibatches, for the log
    config_group: Optional[str] = None  # the method's own config group, whose `loss` sub-group holds its loss options
    _dropped = (0, 0)  # dynamic sampling: groups and episodes left out of this iteration's update so far
    _teacher_kl = (0.0, 0.0)  # distillation: this iteration's summed per-token reverse KL to the teacher, tokens
    _component_sums: dict[str, tuple[float, float]] = {}  # a metric mix: this iteration's sum of each component, episodes
    teacher: Optional[torch.nn.Module] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        options = self.loss_options()
        if options.ratio == "sequence" and self.cfg.ppo.minibatch != "episodes":
            raise ValueError(f"{self.config_group}.loss.ratio=sequence needs whole episodes in each minibatch "
                             "(the sequence's ratio is over all its tokens): set ppo.minibatch=episodes")
        if options.reward_normalisation == "per_component" and self.group_size() < 2:
            raise ConfigError(f"{self.config_group}.loss.reward_normalisation=per_component standardises each reward "
                              "component within a prompt's group: it needs at least 2 samples per prompt")
        if options.reward_normalisation == "per_component" and self.cfg.reward.get("dense") is not None:
            raise ConfigError(f"{self.config_group}.loss.reward_normalisation=per_component standardises sequence "
                              f"rewards in their groups; reward.dense={self.cfg.reward.dense} gives per-token rewards: "
                              "leave one of the two unset")
        teacher = self.teacher_options()
        if teacher.model:  # before any rollout: a teacher with another tokenizer is refused here
            self.teacher = load_teacher(str(teacher.model), f"{self.config_group}.teacher.model", self.policy,
                                        str(self.cfg.model.kind), str(self.cfg.model.dtype))

    # -- what a method says -------------------------------------------------------------------------
    def group_size(self) -> int:
        """Samples drawn per prompt, consecutive in each round."""
        return 1

    def aggregation(self) -> str:
        """How the loss averages over tokens and sequences (grue/train/rl/policy_gradient.AGGREGATIONS)."""
        return "token"

    def kl_placement(self) -> str:
        """Where the KL term sits, `reward` or `loss`: the `kl` group's, the same for every method
        (grue/train/regulariser.py reads it back from a results file)."""
        return str(self.cfg.kl.placement)

    def loss_kl_coef(self) -> float:
        """The coefficient of the KL term in the loss: the `kl` controller's beta with `kl.placement=loss`
        (fixed with kl.k_beta=0, GRPO's paper setting), 0 with the penalty in the reward."""
        return float(self.kl_ctl.value) if self.kl_placement() == "loss" else 0.0

    def token_advantages(self, episodes: Episodes) -> torch.Tensor:
        """[B, T] the advantage of each step of each episode (zero on padding is not required)."""
        raise NotImplementedError

    def loss_options(self) -> Any:
        """The method's loss options (`<config_group>.loss`; grue/train/rl/critic_free_config.LossOptions); the
        defaults, PPO-clip on token ratios with nothing dropped or shaped, for a method without them."""
        group = self.cfg.get(self.config_group) if self.config_group else None
        options = group.get("loss") if group is not None else None
        return options if options is not None else LossOptions()

    def teacher_options(self) -> Any:
        """The method's distillation settings (`<config_group>.teacher`); no teacher for a method without them."""
        group = self.cfg.get(self.config_group) if self.config_group else None
        options = group.get("teacher") if group is not None else None
        return options if options is not None else TeacherOptions()

    def clip_bounds(self) -> tuple[Optional[float], float]:
        """(below, above) 1, the ratio's or the weight's clip: ppo.clip_range unless the options set them;
        a weight clip (CISPO) without clip_low has no lower bound."""
        options, symmetric = self.loss_options(), self.clip_range()
        low = options.clip_low if options.clip_low is not None else (None if options.clip == "weight" else symmetric)
        high = options.clip_high if options.clip_high is not None else (low if low is not None else symmetric)
        return low, float(high)

    # -- shared helpers for `token_advantages` -------------------------------------------------------
    def kl_penalised(self, episodes: Episodes, token_reward: Optional[torch.Tensor] = None) -> torch.Tensor:
        """[B, T] the task reward (or `token_reward`, [B] or [B, T]) minus the `kl` controller's beta times
        the per-token `kl.estimator` estimate against the reference: PPO's rewards (grue/train/rl/kl.py).
        With `kl.placement=loss` the penalty is the loss's instead, and this is the reward alone."""
        rollout = episodes.rollout
        reward = episodes.token_reward if token_reward is None else token_reward
        beta = self.kl_ctl.value if self.kl_placement() == "reward" else 0.0
        rewards, _ = kl_penalised_rewards(reward, rollout.raw_logp, episodes.ref_logp, rollout.valid,
                                          rollout.last_index, beta, str(self.cfg.kl.estimator))
        return rewards

    # -- group sampling ------------------------------------------------------------------------------
    def _my_samples(self, episodes: int, cut_last_group: bool = False) -> list[Sample]:
        """This rank's prompts for at least `episodes` episodes, each repeated `group_size` times in a row.
        Prompts are drawn as RLTrainer draws episodes (the same global order on every rank); a round holds
        whole groups, so it may be up to G - 1 episodes larger than asked, except where `cut_last_group`
        (the run's last iteration, which must end at the token budget: RLTrainer.collect): then this rank's
        last group holds only the episodes asked of it (`round_groups` records the sizes; a group of one has
        no other sample to compare with, and its advantage is 0)."""
        size = self.group_size()
        if not cut_last_group or size == 1:
            prompts = super()._my_samples(-(-episodes // size))
            self.round_groups = [size] * len(prompts)
            return [sample for sample in prompts for _ in range(size)]
        mine = -(-episodes // self.world)  # this rank's episodes, as RLTrainer splits them
        per_rank = -(-mine // size)
        everyone = self._next_samples(per_rank * self.world)
        prompts = everyone[self.rank * per_rank:(self.rank + 1) * per_rank]
        self.round_groups = [size] * (per_rank - 1) + [mine - (per_rank - 1) * size]
        return [sample for sample, n in zip(prompts, self.round_groups) for _ in range(n)]

    def by_group(self, statistic: Callable[[torch.Tensor, int], torch.Tensor], values: torch.Tensor) -> torch.Tensor:
        """`statistic(values, group_size)` over the round's groups (`round_groups`, consecutive episodes):
        whole groups of `group_size`, and a last group cut by the budget at its own size (0 for a group
        of one). Without a recorded layout for these episodes, whole groups of `group_size`."""
        size, layout = self.group_size(), getattr(self, "round_groups", None)
        if not layout or sum(layout) != values.shape[0] or all(n == size for n in layout):
            return statistic(values, size)
        whole, cut = sum(layout[:-1]), layout[-1]  # only the last group is ever cut
        head = statistic(values[:whole], size) if whole else values[:0]
        tail = statistic(values[whole:], cut) if cut > 1 else torch.zeros_like(values[whole:])
        return torch.cat([head, tail])

    # -- seam 2 --------------------------------------------------------------------------------------
    def shaped(self, episodes: Episodes) -> Episodes:
        """The round with DAPO's overlong penalty added to each episode's reward (at its last token under a
        dense reward), when `loss.overlong_buffer` asks; the task reward that is logged stays the task's."""
        options = self.loss_options()
        if not options.overlong_buffer:
            return episodes
        rollout = episodes.rollout
        budget = int(self.cfg.rollout.max_new_tokens)
        penalty = overlong_penalty(rollout.valid.sum(dim=1), budget, max(1, round(float(options.overlong_buffer) * budget)),
                                   float(options.overlong_penalty))
        return dataclasses.replace(episodes, token_reward=minus_baseline(episodes.token_reward, -penalty.to(
            episodes.token_reward.dtype), rollout.last_index))

    def kept_episodes(self, episodes: Episodes) -> torch.Tensor:
        """[B] 1.0 for the episodes the update trains on: all of them, or with `loss.dynamic_sampling` those of
        groups whose task rewards differ (DAPO's filter; counted in `_dropped`)."""
        rewards = episodes.task_reward
        if not self.loss_options().dynamic_sampling:
            return torch.ones_like(rewards, dtype=torch.float32)
        keep = self.by_group(informative_groups, rewards.float())
        layout = getattr(self, "round_groups", None)
        if not layout or sum(layout) != rewards.shape[0]:  # as by_group: whole groups without a recorded layout
            layout = [self.group_size()] * (rewards.shape[0] // self.group_size())
        starts = torch.tensor([0, *layout[:-1]]).cumsum(0)  # each group's first episode
        dropped = int((keep[starts] == 0).sum())
        self._dropped = (self._dropped[0] + dropped, self._dropped[1] + int((keep == 0).sum()))
        return keep

    def mixed(self, episodes: Episodes) -> Episodes:
        """The round with its task reward replaced, for the method's advantage, by the weighted sum of its
        components each standardised in its group (`loss.reward_normalisation=per_component`: GDPO's Eqs. 4-5);
        the task reward that is logged (and that dynamic sampling reads) stays the task's. A reward without
        components is one component (then this is GRPO's standardisation of it)."""
        if self.loss_options().reward_normalisation != "per_component":
            return episodes
        parts, reward = episodes.components, episodes.token_reward
        if parts is None:  # a reward of one component is its own single component: GRPO's standardisation
            values, weights = reward[:, None], torch.ones(1, dtype=reward.dtype, device=reward.device)
        else:
            values = torch.tensor(parts.values, dtype=reward.dtype, device=reward.device).T
            weights = torch.tensor(parts.weights, dtype=reward.dtype, device=reward.device)
        mixed = per_component_normalised(values, weights, lambda column: self.by_group(group_normalised, column))
        return dataclasses.replace(episodes, token_reward=mixed)

    def weighted(self, episodes: Episodes) -> Episodes:
        """The task reward times `teacher.task_weight` (0: pure distillation; 1, the default: unchanged)."""
        weight = float(self.teacher_options().task_weight)
        return episodes if weight == 1.0 else dataclasses.replace(episodes, token_reward=episodes.token_reward * weight)

    @torch.no_grad()
    def distillation(self, episodes: Episodes) -> torch.Tensor:
        """[B, T] the teacher's term of each token's advantage, coef * (log p_teacher - log p_student), both at
        the KL's temperature over the whole vocabulary (grue/train/rl/teacher.py); its reverse KL is logged."""
        rollout = episodes.rollout
        teacher_logp = tempered_log_probs(self.policy, self.teacher, rollout,
                                          kl_temperature(self.cfg.kl.temperature, rollout.temperature))
        reverse_kl = (rollout.raw_logp - teacher_logp) * rollout.valid
        total, tokens = self._teacher_kl
        self._teacher_kl = (total + reverse_kl.sum().item(), tokens + rollout.valid.sum().item())
        return reverse_kl_advantage(teacher_logp, rollout.raw_logp, rollout.valid, float(self.teacher_options().coef))

    def count_components(self, episodes: Episodes) -> None:
        """Add this round's reward components (a metric mix's parts, before any normalisation) to the
        iteration's sums, so the log shows which part of the reward moved (`reward/<component>`)."""
        parts = episodes.components
        if parts is None:
            return
        sums = dict(self._component_sums)
        for name, column in zip(parts.names, parts.values):
            total, count = sums.get(name, (0.0, 0.0))
            sums[name] = (total + float(sum(column)), count + len(column))
        self._component_sums = sums

    def advantages(self, episodes: Episodes) -> Experience:
        self.count_components(episodes)
        episodes = self.weighted(self.shaped(self.mixed(episodes)))
        rollout = episodes.rollout
        valid = rollout.valid
        advantages = self.token_advantages(episodes) * valid
        if self.teacher is not None:
            advantages = advantages + self.distillation(episodes)
        kl = (rollout.raw_logp - episodes.ref_logp) * valid  # logged (and controls a reward penalty's beta)
        zeros = torch.zeros_like(valid)
        # token_weight holds which episodes the update keeps until `update` turns it into their loss weights
        return Experience(rollout, zeros, advantages, zeros, episodes.task_reward, kl, episodes.generations,
                          ref_logp=episodes.ref_logp, token_weight=self.kept_episodes(episodes).to(valid.dtype))

    def algorithm_stats(self) -> dict[str, float]:
        stats = super().algorithm_stats()
        if self.loss_options().dynamic_sampling:
            groups, episodes = global_sum([float(n) for n in self._dropped], self.world)
            stats.update({"dynamic_sampling/dropped_groups": groups, "dynamic_sampling/dropped_episodes": episodes})
        self._dropped = (0, 0)
        if self.teacher is not None:  # nats per generated token, every process: falls as the student nears the teacher
            total, tokens = global_sum(list(self._teacher_kl), self.world)
            stats["distill/reverse_kl"] = total / max(tokens, 1.0)
        self._teacher_kl = (0.0, 0.0)
        for name, (total, count) in sorted(self._component_sums.items()):  # every process holds every name
            total, count = global_sum([total, count], self.world)
            stats[f"reward/{name}"] = total / max(count, 1.0)
        self._component_sums = {}
        return stats

    def trained_advantages(self, exp: Experience) -> torch.Tensor:
        """GDPO's last step with `loss.whiten_advantages`: (A - mean) / std over every valid token of the
        iteration on every process; otherwise as the method asks (RLTrainer)."""
        if self.loss_options().whiten_advantages:
            return whiten_over_processes(exp.advantages, exp.rollout.valid, self.world)
        return super().trained_advantages(exp)

    # -- seam 3 --------------------------------------------------------------------------------------
    def update(self, exp: Experience) -> dict[str, float]:
        """Weights each token for the method's aggregation, then RLTrainer's epochs of minibatches.

        A minibatch's loss is `parts * world` times its share of the whole objective, so it is an unbiased
        estimate of the objective whatever the minibatch holds, and after the gradients are averaged over
        processes each optimizer step sees the global minibatch's share."""
        valid = exp.rollout.valid
        keep = exp.token_weight if exp.token_weight is not None else torch.ones(valid.shape[0], dtype=valid.dtype)
        kept = valid * keep[:, None]  # dynamic sampling: the averages run over the groups kept
        sequences, tokens = global_sum([keep.sum().item(), kept.sum().item()], self.world)
        parts = self.minibatch_parts(int(global_sum([valid.sum().item()], self.world)[0]))
        weights = episode_weights(valid, self.aggregation(), sequences, tokens, int(self.cfg.rollout.max_new_tokens))
        exp.token_weight = weights * keep * parts * self.world
        self._kl_loss_total, self._kl_loss_steps = 0.0, 0
        stats = super().update(exp)
        if self.loss_kl_coef():
            stats["loss/kl"] = self._kl_loss_total / max(1, self._kl_loss_steps)
        return stats

    def _backward_minibatch(self, mb: Experience, selected: torch.Tensor, share: Optional[float]) -> PPOLosses:
        """The method's weighted PPO-clip loss for one minibatch, and its gradients. `share` (PPO's
        per-process token-mean correction) is not needed: the token weights already carry it."""
        cfg, rollout = self.cfg.ppo, mb.rollout
        kl_coef = self.loss_kl_coef()
        # Log-probs and entropy a chunk of positions at a time, no [B, T, V] tensor (grue.policy.logprobs),
        # under the distribution that was sampled from (action mask, temperature). The KL term compares the
        # policy's own unmasked distribution with the reference at the KL's temperature (1 unless
        # kl.temperature; the reference's log-probs were taken at it), as the reward penalty does; it comes
        # out of the same head product. With no entropy bonus the entropy is only logged.
        entropy_grad = cfg.ent_coef != 0
        if kl_coef:
            t_kl = kl_temperature(self.cfg.kl.temperature, rollout.temperature)
            new_logp, token_entropy, raw_logp = self.policy.action_and_raw_stats(self.policy.model, rollout,
                                                                                 entropy_grad=entropy_grad,
                                                                                 raw_temperature=t_kl)
            kl = kl_estimate(raw_logp, mb.ref_logp, str(self.cfg.kl.estimator))
        else:
            new_logp, token_entropy, _ = self.policy.action_stats(self.policy.model, rollout,
                                                                  entropy_grad=entropy_grad)
            kl = None
        weights = selected * mb.token_weight[:, None]
        options = self.loss_options()
        low, high = self.clip_bounds()
        terms = weighted_clipped_loss(new_logp, rollout.logp, mb.advantages, weights, low, token_entropy,
                                      cfg.ent_coef, kl, kl_coef, clip_high=high, ratio_level=str(options.ratio),
                                      clip_target=str(options.clip), valid=rollout.valid,
                                      is_weights=sampler_weights(self.cfg, rollout))
        _check_finite(self.iteration + 1, PPO_loss=terms.loss.item())
        self._backward(terms.loss, None)
        self._kl_loss_total += terms.kl.item()
        self._kl_loss_steps += 1
        return PPOLosses(terms.loss.detach(), terms.policy.detach(), torch.zeros(()), terms.entropy,
                         terms.approx_kl, terms.clip_fraction)
