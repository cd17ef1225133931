"""The RL trainer for any policy, and PPO as its default: rollout -> advantages -> update.

One iteration is three seams an algorithm can replace one at a time (grue/train/registry.py says how
an algorithm names its trainer):
- `rollout_round(samples)`: sample episodes, score them, reference log-probs (shared by all);
- `advantages(episodes)`: PPO's per-token KL-penalised rewards, critic values and GAE; a critic-free
  method (`uses_critic = False`) computes its own, e.g. group-normalised sequence rewards;
- `update(experience)`: epochs of clipped-ratio minibatch steps over the rollout (the critic's value
  loss joins when there is one).
Hooks for what an algorithm adds around them: `extra_models` (frozen models it checkpoints and
shards, e.g. NLPO's masking model), `rollout_processors`, `evaluation_processors`, `algorithm_stats`,
`after_iteration` (grue/train/rl/nlpo.py uses all five).
Two declarations complete the contract with an algorithm: `advantage_normalisation` (the update trains
on what the advantage seam returns unless the class defining that seam asks for a normalisation) and
`iteration_state` (the attributes it keeps across iterations, which checkpoints carry).
"""
from __future__ import annotations

import copy
import math
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import torch
from accelerate.utils import DistributedType
from transformers import PreTrainedModel

from grue.errors import GrueUserError
from grue.train.checkpoint import SHARDS, check_checkpoint_layout, load_trainable_state, trainable_state
from grue.data.sample import Sample
from grue.policy.lora import is_lora
from grue.policy.stop_strings import rollout_stops
from grue.train.rl.kl import AdaptiveKLController
from grue.train.rl.mismatch import mismatch_stats, sampler_weights
from grue.train.rl.ppo_loss import PPOLosses, combined, masked_mean, policy_terms, value_term
from grue.train.rl.minibatch import MINIBATCHES, minibatch_count
from grue.train.rl.rollout import Episodes, Experience, concat_experiences, gae_experience, next_episode_count, \
    sample_episodes
from grue.runtime.distributed import average_gradients, global_sum, world_of
from grue.runtime.sharding import Sharding


class NonFiniteError(GrueUserError, RuntimeError):
    """A loss, reward, KL or gradient became NaN or infinite; the run stops and keeps its last good checkpoint."""

    def __init__(self, message: str, iteration: int = 0, quantity: str = "") -> None:
        super().__init__(message)
        self.iteration, self.quantity = iteration, quantity


def _check_finite(iteration: int, **values: float) -> None:
    """`iteration` is the 1-based number of the iteration being computed, as in logs/train.jsonl."""
    for name, value in values.items():
        if not math.isfinite(value):
            raise NonFiniteError(f"iteration {iteration}: {name.replace('_', ' ')} is {value}", iteration, name)


def build_optimizer(modules: Sequence[torch.nn.Module], lr: float, weight_decay: float,
                    fused: bool = True) -> torch.optim.AdamW:
    """One AdamW over policy and critic; no decay on biases and norms (as SB3/the reference code).

    `fused` runs torch's fused kernel instead of its per-tensor loop over every parameter (hundreds of
    tensors; the loop was over a second of each PPO iteration on SmolLM2-135M, issue 18). It agrees
    with the loop to float rounding (tests/train/rl/test_optimizer.py). Sharded (DTensor) parameters keep
    the loop.
    """
    decay, no_decay = [], []
    for module in modules:
        for name, param in module.named_parameters():
            if param.requires_grad:
                (no_decay if param.ndim < 2 or "norm" in name.lower() else decay).append(param)
    return torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}], lr=lr, fused=fused or None)


def whiten_over_processes(advantages: torch.Tensor, valid: torch.Tensor, world: int) -> torch.Tensor:
    """(A - mean) / (std + 1e-8) over every valid token of every process, zero on padding: PPO's
    rollout-wide normalisation, and REINFORCE++'s global-batch normalisation (grue/train/rl/reinforce_pp.py)."""
    total, squares, count = global_sum([(advantages * valid).sum().item(), (advantages ** 2 * valid).sum().item(),
                                        valid.sum().item()], world)
    mean = total / max(count, 1.0)
    std = max(squares / max(count, 1.0) - mean ** 2, 0.0) ** 0.5
    return (advantages - mean) / (std + 1e-8) * valid


# The seams whose output is an algorithm's advantages (`token_advantages`: CriticFreeTrainer's).
ADVANTAGE_SEAMS = ("advantages", "token_advantages")
# What `advantage_normalisation` may ask for: PPO's `ppo.normalise_advantages` (over the rollout, per
# minibatch or none, as the run's config says); whitened over the iteration's whole rollout, every process
# (REINFORCE++'s global batch), whatever the ppo group says; or nothing: the advantages as returned.
ADVANTAGE_NORMALISATIONS = ("ppo", "rollout", None)


class RLTrainer:
    """PPO (paper section 3): a critic, GAE advantages over KL-penalised rewards, PPO-clip updates."""

    uses_critic = True  # False: `value` is None and the algorithm's `advantages` needs no critic
    # The advantage contract: the update trains on what the advantage seam returns, unless the class that
    # defines the seam asks for a normalisation here (one of ADVANTAGE_NORMALISATIONS). A subclass that
    # overrides `advantages` or `token_advantages` without setting this gets what it returns (None), so a
    # plugin's baseline is never whitened away behind its back; PPO asks for the ppo group's normalisation.
    advantage_normalisation: Optional[str] = "ppo"
    # Iteration state: names of the attributes an algorithm keeps from one iteration to the next (a moving
    # average, a count). Checkpoints carry them (`state_dict`), so a resumed run goes on as if never stopped.
    iteration_state: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if any(seam in own for seam in ADVANTAGE_SEAMS) and "advantage_normalisation" not in own:
            cls.advantage_normalisation = None
        if cls.advantage_normalisation not in ADVANTAGE_NORMALISATIONS:
            raise TypeError(f"{cls.__name__}.advantage_normalisation must be one of "
                            f"{', '.join(map(repr, ADVANTAGE_NORMALISATIONS))}, not {cls.advantage_normalisation!r}")

    def __init__(self, cfg: Any, policy: Any, ref_model: Any, value: Any, reward_fn: Any,
                 train: Sequence[Sample], accelerator: Any, sharding: Optional[Sharding] = None) -> None:
        self.cfg, self.policy, self.ref_model, self.value = cfg, policy, ref_model, value
        self.reward_fn, self.train, self.accelerator = reward_fn, list(train), accelerator
        extra = self.extra_models()  # made whole, before any sharding
        if sharding is not None and is_lora(policy.model):
            raise ValueError("model.lora with sharded parameters (shard=full|grad_op) is not supported; run LoRA "
                             "data parallel (accelerate=ddp)")
        self._use_mixed_precision(policy, [ref_model, value, *extra.values()])
        self.sharding = sharding
        if sharding is not None:  # every model, frozen ones too, before the optimizer sees the parameters
            for model in (policy.model, value, ref_model, *extra.values()):
                if model is not None:
                    sharding.shard(model)
        trained = [m for m in (policy.model, value) if m is not None]
        self.optimizer = build_optimizer(trained, cfg.ppo.learning_rate, cfg.ppo.weight_decay, fused=sharding is None)
        if self._scaler() is not None:  # fp16: accelerate's optimizer steps through the loss scaler
            self.optimizer = accelerator.prepare_optimizer(self.optimizer, device_placement=False)
        # what a sharded checkpoint holds, by name (grue.runtime.sharding.save_shards)
        self._owner = torch.nn.ModuleDict({"policy": policy.model, **({"value": value} if value is not None else {}),
                                           **extra})
        self.kl_ctl = AdaptiveKLController(cfg.kl.init_coef, cfg.kl.target, cfg.kl.k_beta, cfg.kl.target_unit)
        self.iteration = 0
        self.n_iters = max(1, cfg.ppo.total_steps // cfg.ppo.steps_per_update)
        self.tokens_spent = 0  # valid generated transitions of the run so far, all processes (the budget's)
        self.data_gen = torch.Generator().manual_seed(int(cfg.seed))
        self.update_gen = torch.Generator().manual_seed(int(cfg.seed) + 1)
        self._order: list[int] = []
        self.rank, self.world = world_of(accelerator)

    # -- mixed precision (model.mixed_precision) -------------------------------------------------------
    def _use_mixed_precision(self, policy: Any, others: Sequence[Any]) -> None:
        """Under bf16/fp16 autocast every pass of the policy (sampling included), the reference, the
        critic and the algorithm's models runs autocast; weights stay fp32 (grue.runtime.accelerator)."""
        from grue.runtime.accelerator import autocast, autocast_settings, autocast_forward, check_mixed_precision

        model_cfg = self.cfg.model
        check_mixed_precision(self.accelerator, getattr(model_cfg, "mixed_precision", "no"), model_cfg.dtype)
        settings = autocast_settings(self.accelerator)
        if settings is None:
            return
        policy.autocast = lambda: autocast(settings)  # the vocabulary head's chunks, outside the model's forward
        for model in (policy.model, *(getattr(m, "trunk", m) for m in others if m is not None)):
            if isinstance(model, PreTrainedModel):  # a LoRA view runs the policy's own (patched) model
                autocast_forward(model, settings)

    def _scaler(self) -> Any:
        """accelerate's loss scaler (fp16 on a GPU), or None."""
        return getattr(self.accelerator, "scaler", None)

    # -- what an algorithm adds around the seams (PPO adds nothing) ---------------------------------
    def extra_models(self) -> dict[str, torch.nn.Module]:
        """Frozen models of the algorithm's own, by checkpoint name: sharded and saved with the run.
        Called once, from __init__, before anything is sharded."""
        return {}

    def rollout_processors(self, prompts: Any) -> Sequence[Any]:
        """Logits processors for one rollout generate() call (they shape the recorded distribution)."""
        return ()

    def evaluation_processors(self) -> Optional[Callable[[Any], Sequence[Any]]]:
        """A factory of logits processors for evaluation decoding, or None for plain decoding."""
        return None

    def algorithm_stats(self) -> dict[str, float]:
        """The algorithm's own figures for this iteration's log line (read after the rollout)."""
        return {}

    def after_iteration(self) -> None:
        """Called once per iteration, after the update and the KL controller's step."""

    # -- data order ------------------------------------------------------------------------------
    def _next_samples(self, n: int) -> list[Sample]:
        out = []
        while len(out) < n:
            if not self._order:
                self._order = torch.randperm(len(self.train), generator=self.data_gen).tolist()
            out.append(self.train[self._order.pop()])
        return out

    # -- one iteration -----------------------------------------------------------------------------
    def _my_samples(self, episodes: int, cut_last_group: bool = False) -> list[Sample]:
        """This rank's block of the next `episodes` episodes of the run. Every rank draws the same global
        order (same generator), rounded up to a multiple of the number of processes so all generate
        equally often; with one process this is exactly the next `episodes` samples. (`cut_last_group`
        is for methods that sample groups per prompt: grue/train/rl/critic_free.py.)"""
        per_rank = math.ceil(episodes / self.world)
        everyone = self._next_samples(per_rank * self.world)
        return everyone[self.rank * per_rank:(self.rank + 1) * per_rank]

    # -- the token budget ------------------------------------------------------------------------
    def budget(self) -> int:
        """The run's generated-token budget: `ppo.total_steps`, in whole iterations of `ppo.steps_per_update`
        (every preset's total is a multiple; a remainder is dropped, as it always was)."""
        return self.n_iters * int(self.cfg.ppo.steps_per_update)

    def tokens_due(self) -> int:
        """Valid transitions (all processes) this iteration should bring the run to: the budget is the
        run's, not each iteration's, so what one iteration overshot the next one collects less, and the
        last one ends the run at the budget (`collect`)."""
        return min(self.budget(), (self.iteration + 1) * int(self.cfg.ppo.steps_per_update))

    def collect(self) -> Experience:
        """Episodes until the run holds `tokens_due()` valid transitions (over all processes), at least one
        round an iteration. The first round assumes full-length episodes, later rounds (where generations
        ended early) size themselves by the mean length so far, at most one rollout batch per process each.
        The run's last iteration sizes every round as if each episode ran to `rollout.max_new_tokens`, so it
        can never pass the budget by a whole episode: the run stops within one episode's length (per
        process) of `ppo.total_steps`, whatever a method's group size (a group method's last group may be
        cut: `_my_samples`)."""
        cfg = self.cfg
        last = self.iteration + 1 >= self.n_iters
        goal = max(1.0, float(self.tokens_due() - self.tokens_spent))
        # grue's decoder (rollout.decoder=grue, the default) keys each episode's noise by (seed, iteration,
        # sample id, copy) and ignores torch's global generator (grue.policy.sampling), so its samples are the
        # same on any process. This seed matters only to what draws from the global generator during the
        # rollout, i.e. rollout.decoder=generate: rank-dependent there, reproducible on resume.
        if self.world > 1:
            torch.manual_seed(int(cfg.seed) * 1_000_003 + self.iteration * 1009 + self.rank)
        parts: list[Experience] = []
        transitions, episodes = 0.0, 0.0
        horizon = float(cfg.rollout.max_new_tokens)
        with self.gathered_for_generation():
            while transitions < goal:
                cap = cfg.ppo.rollout_batch_size * self.world if parts else math.inf  # round one: as many as needed
                if last:  # at most the tokens left even if every episode runs full length
                    n = max(1, int(min(cap, (goal - transitions) // horizon)))
                else:
                    mean_length = transitions / episodes if episodes else horizon
                    n = next_episode_count(int(goal - transitions), mean_length, cap)
                part = self.advantages(self.rollout_round(self._my_samples(n, cut_last_group=last)))
                part.rollout.learner_states = None  # the advantages are made: not carried into the update
                parts.append(part)
                valid, count = global_sum([part.rollout.valid.sum().item(), part.task_reward.numel()], self.world)
                transitions, episodes = transitions + valid, episodes + count
        self.tokens_spent += int(transitions)
        return concat_experiences(parts, self.policy.tokenizer.pad_token_id, self.policy.padding_side)

    def rollout_round(self, samples: Sequence[Sample]) -> Episodes:
        """Seam 1: sample, score and take the reference's log-probs for one round of episodes."""
        return sample_episodes(self.policy, samples, self.cfg.rollout, self.cfg.ppo.rollout_batch_size,
                               self.reward_fn, self.ref_model, self.rollout_processors,
                               seed=int(self.cfg.seed), iteration=self.iteration,
                               kl_temperature=self.cfg.kl.temperature, stops=rollout_stops(self.cfg))

    def advantages(self, episodes: Episodes) -> Experience:
        """Seam 2: PPO's GAE over the KL-penalised rewards with the critic's values."""
        cfg = self.cfg.ppo
        return gae_experience(self.policy, episodes, self.value, self.kl_ctl.value, cfg.gamma, cfg.gae_lambda,
                              str(getattr(self.cfg.kl, "estimator", "k1")))

    def generating_models(self) -> list[torch.nn.Module]:
        """The models a generate() call runs: the policy and any model its processors run."""
        return [self.policy.model]

    def gathered_for_generation(self):
        """Sharded: the generating models whole while each rank decodes at its own pace (the reference
        and the critic stay sharded; every rank calls them equally often)."""
        if self.sharding is None:
            return nullcontext()
        return self.sharding.gathered(self.generating_models())

    def _normalised_advantages(self, exp: Experience) -> torch.Tensor:
        """Advantages normalised over the whole iteration's rollout (every process's transitions), or
        left as they are when `ppo.normalise_advantages` is `minibatch` (the loss does it) or `none`."""
        if self.cfg.ppo.normalise_advantages != "rollout":
            return exp.advantages
        return whiten_over_processes(exp.advantages, exp.rollout.valid, self.world)

    def trained_advantages(self, exp: Experience) -> torch.Tensor:
        """What the update trains on: the advantage seam's output, normalised only as the class that defines
        that seam asks (`advantage_normalisation`)."""
        if self.advantage_normalisation == "ppo":
            return self._normalised_advantages(exp)
        if self.advantage_normalisation == "rollout":
            return whiten_over_processes(exp.advantages, exp.rollout.valid, self.world)
        return exp.advantages

    def _minibatch_normalised(self) -> bool:
        """Whether the loss whitens each minibatch's advantages (`ppo.normalise_advantages=minibatch`, PPO's)."""
        return self.advantage_normalisation == "ppo" and self.cfg.ppo.normalise_advantages == "minibatch"

    def _backward(self, loss: torch.Tensor, share: Optional[float]) -> None:
        self.accelerator.backward(loss * share if share is not None else loss)

    def _policy_backward_first(self) -> bool:
        """Whether the policy's terms can be back-propagated before the critic's forward (see below)."""
        return (self.value is not None and not getattr(self.value, "shared", False) and self.sharding is None
                and self.accelerator.distributed_type != DistributedType.DEEPSPEED)

    def _backward_minibatch(self, mb: Experience, selected: torch.Tensor, share: Optional[float]) -> PPOLosses:
        """Forward passes, the PPO loss and its gradients for one minibatch.

        A separate critic's graph shares nothing with the policy's, so the policy's terms are
        back-propagated before the critic's forward runs: the policy's activations (and its [B, T, V]
        log-probabilities) are freed before the critic's are made, which lowers the update's peak
        memory. Every parameter gets its gradient from one graph only, through the same operations as
        from the summed loss, so the gradients are the same bit for bit (tests/train/rl/test_split_backward.py).
        Sharded models and engines that step inside backward get the summed loss in one backward."""
        cfg = self.cfg.ppo
        shared = getattr(self.value, "shared", False)
        # Log-probs and entropy a chunk of positions at a time, no [B, T, V] tensor (grue.policy.logprobs).
        # With no entropy bonus the entropy is only logged: computed without gradients, it adds no graph
        # or backward, and leaves the loss and its gradients as they are.
        new_logp, token_entropy, states = self.policy.action_stats(self.policy.model, mb.rollout, hidden=shared,
                                                                   entropy_grad=cfg.ent_coef != 0)
        policy = policy_terms(new_logp, mb.rollout.logp, mb.advantages, token_entropy, selected, cfg.clip_range,
                              cfg.ent_coef, normalise_advantages=self._minibatch_normalised(),
                              is_weights=sampler_weights(self.cfg, mb.rollout))
        if self.value is None:  # critic-free: the policy's terms are the whole loss
            _check_finite(self.iteration + 1, PPO_loss=policy.loss.item())
            self._backward(policy.loss, share)
            losses = combined(policy, torch.zeros((), device=policy.loss.device), cfg.vf_coef, cfg.ent_coef)
        elif self._policy_backward_first():
            _check_finite(self.iteration + 1, PPO_loss=policy.loss.item())
            self._backward(policy.loss, share)
            del new_logp, states, token_entropy
            value_loss = value_term(self.value.values(self.policy, mb.rollout), mb.returns, selected)
            losses = combined(policy, value_loss, cfg.vf_coef, cfg.ent_coef)
            _check_finite(self.iteration + 1, PPO_loss=losses.total.item())
            self._backward(cfg.vf_coef * value_loss, share)
        else:
            values = self.value.values(self.policy, mb.rollout, states)
            losses = combined(policy, value_term(values, mb.returns, selected), cfg.vf_coef, cfg.ent_coef)
            _check_finite(self.iteration + 1, PPO_loss=losses.total.item())
            self._backward(losses.total, share)
        return losses

    def update_epochs(self) -> int:
        """Passes over each rollout: `ppo.epochs` (an algorithm with an update of its own says otherwise)."""
        return int(self.cfg.ppo.epochs)

    def minibatch_parts(self, transitions: int) -> int:
        """Minibatches per pass over a rollout of `transitions` valid transitions (all processes)."""
        return minibatch_count(transitions, self.cfg.ppo.batch_size)

    def clip_range(self) -> float:
        """The ratio's clip range: `ppo.clip_range` (math.inf: no clipping)."""
        return float(self.cfg.ppo.clip_range)

    def update(self, exp: Experience) -> dict[str, float]:
        """`ppo.epochs` passes over the rollout's transitions in random minibatches of at most
        `ppo.batch_size` transitions (grue.train.rl.minibatch). The number of optimizer steps and the global
        minibatches depend on the rollout only, not on how many processes share it."""
        cfg = self.cfg.ppo
        exp.advantages = self.trained_advantages(exp)
        total = int(global_sum([exp.rollout.valid.sum().item()], self.world)[0])
        parts = self.minibatch_parts(total)
        cut = MINIBATCHES[cfg.minibatch]
        params = [p for g in self.optimizer.param_groups for p in g["params"]]
        totals: dict[str, float] = {}
        steps = 0
        for _ in range(self.update_epochs()):
            batches = cut(exp.rollout.valid, parts, self.update_gen)
            # each global minibatch's size: part j of every rank's split
            global_sizes = global_sum([b.size for b in batches], self.world)
            for j, batch in enumerate(batches):
                mb = exp.episodes(batch.rows, batch.length)
                # this rank's token mean, weighted by its share of the global minibatch: after the
                # gradients are averaged over ranks they are those of the global minibatch's token mean
                share = batch.size * self.world / max(global_sizes[j], 1) if self.world > 1 else None
                losses = self._backward_minibatch(mb, batch.selected, share)
                average_gradients(params, self.world)  # sharded parameters were averaged by their backward
                grad_norm = (self.sharding.clip_grad_norm_(params, cfg.max_grad_norm) if self.sharding is not None
                             else self.accelerator.clip_grad_norm_(params, cfg.max_grad_norm))
                # None where an accelerate engine clips inside its own step; under fp16 loss scaling an
                # overflow is the scaler's business (it skips the step and lowers the scale)
                if grad_norm is not None and self._scaler() is None:
                    _check_finite(self.iteration + 1, gradient_norm=float(grad_norm))
                self.optimizer.step()
                # freed right after the step, so gradients never stay allocated through the next rollout
                self.optimizer.zero_grad(set_to_none=True)
                steps += 1
                for key in ("total", "policy", "value", "entropy", "approx_kl", "clip_fraction"):
                    totals[key] = totals.get(key, 0.0) + getattr(losses, key).item()
        return {"optimizer_steps": steps, **{f"loss/{k}": v / max(1, steps) for k, v in totals.items()}}

    def step(self) -> dict[str, float]:
        """One rollout + one update (and whatever the algorithm does after it)."""
        start = time.perf_counter()
        exp = self.collect()
        rollout_s = time.perf_counter() - start
        kl_sum, valid, reward_sum, episodes = global_sum(
            [(exp.kl * exp.rollout.valid).sum().item(), exp.rollout.valid.sum().item(), exp.task_reward.sum().item(),
             exp.task_reward.numel()], self.world)
        if self.world == 1:  # the single-process numbers exactly as they always were
            mean_kl, reward_mean = masked_mean(exp.kl, exp.rollout.valid).item(), exp.task_reward.mean().item()
        else:
            mean_kl, reward_mean = kl_sum / max(valid, 1.0), reward_sum / max(episodes, 1.0)
        _check_finite(self.iteration + 1, mean_reward=reward_mean, mean_KL=mean_kl)
        kl_per_episode = kl_sum / max(episodes, 1.0)  # each episode's summed KL, averaged (Ziegler's unit)
        algorithm_stats = self.algorithm_stats()
        algorithm_stats.update(mismatch_stats(exp.rollout, self.world))  # the sampler-vs-learner gap (0: exact path)
        beta_used = self.kl_ctl.value
        stats = self.update(exp)
        self.kl_ctl.update(mean_kl, kl_per_episode)
        self.iteration += 1
        self.after_iteration()
        return {"iteration": self.iteration, "tokens": int(valid), "episodes": int(episodes),
                "reward_mean": reward_mean, "kl": mean_kl, "kl_per_episode": kl_per_episode,
                "kl_coef": beta_used, "next_kl_coef": self.kl_ctl.value, "rollout_s": rollout_s,
                "update_s": time.perf_counter() - start - rollout_s, **algorithm_stats, **stats, **self._reward_stats()}

    def _reward_stats(self) -> dict[str, float]:
        """A reward's own per-iteration figures (reward.dense=critic: r_ex and r_in apart, the critic's counts)."""
        return self.reward_fn.iteration_stats() if hasattr(self.reward_fn, "iteration_stats") else {}

    # -- resume --------------------------------------------------------------------------------------
    def extra_models_by_name(self) -> dict[str, torch.nn.Module]:
        """The algorithm's own models as checkpointed (those `extra_models` made)."""
        return {name: model for name, model in self._owner.items() if name not in ("policy", "value")}

    def state_dict(self) -> dict[str, Any]:
        """Everything to resume from; a sharded run's weights and optimizer state go to `write_shards`."""
        if self.sharding is None:  # a LoRA policy's state is its adapters (grue.train.checkpoint)
            weights = {"policy": trainable_state(self.policy.model),
                       "value": self.value.state_dict() if self.value is not None else None,
                       **{name: model.state_dict() for name, model in self.extra_models_by_name().items()},
                       "optimizer": self.optimizer.state_dict()}
        else:
            weights = {"sharded": True}
        if self._scaler() is not None:
            weights["scaler"] = self._scaler().state_dict()
        return {**weights, "kl_ctl": self.kl_ctl.state_dict(),
                "iteration": self.iteration, "tokens_spent": self.tokens_spent, "order": list(self._order),
                "data_gen": self.data_gen.get_state(), "update_gen": self.update_gen.get_state(),
                "iteration_state": self._iteration_state()}

    def _iteration_state(self) -> dict[str, Any]:
        """The declared `iteration_state` attributes, copied: the checkpoint must not change as training goes on."""
        return {name: copy.deepcopy(getattr(self, name)) for name in self.iteration_state}

    def _load_iteration_state(self, saved: dict[str, Any]) -> None:
        """Restore the declared attributes. One a checkpoint lacks (saved before the algorithm declared it)
        keeps the value __init__ gave it, which is all such a checkpoint's run ever resumed with."""
        for name in self.iteration_state:
            if name in saved:
                setattr(self, name, copy.deepcopy(saved[name]))

    def write_shards(self, directory: Path) -> None:
        """Every process: its shards of the models and of the optimizer state."""
        self.sharding.save_shards(self._owner, self.optimizer, directory)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        check_checkpoint_layout(state, self.sharding is not None)
        if self.sharding is None:
            load_trainable_state(self.policy.model, state["policy"])
            if self.value is not None:
                self.value.load_state_dict(state["value"])
            for name, model in self.extra_models_by_name().items():
                model.load_state_dict(state[name])
            self.optimizer.load_state_dict(state["optimizer"])
        else:
            self.sharding.load_shards(self._owner, self.optimizer, Path(state["checkpoint_dir"]) / SHARDS)
        if self._scaler() is not None and "scaler" in state:
            self._scaler().load_state_dict(state["scaler"])
        self.kl_ctl.load_state_dict(state["kl_ctl"])
        self.iteration = state["iteration"]
        # a checkpoint from before the run-wide budget: its iterations each collected one iteration's worth
        self.tokens_spent = int(state.get("tokens_spent", self.iteration * int(self.cfg.ppo.steps_per_update)))
        self._order = list(state["order"])
        self.data_gen.set_state(state["data_gen"])
        self.update_gen.set_state(state["update_gen"])
        self._load_iteration_state(state.get("iteration_state", {}))
