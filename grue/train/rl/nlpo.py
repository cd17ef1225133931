"""NLPO (paper section 3.8): PPO whose actions are masked by a top-p masking model.

The masking model is a frozen copy of the policy, refreshed every `nlpo.update_every` iterations
(`nlpo.refresh=never` keeps the initial copy, as the reference code's sampler does). Its top-p set
masks the policy when sampling; the mask is recorded with the rollout and applied again in the
loss, so both log-probs of the ratio come from the same masked distribution. Everything else is
PPO's: this class only fills RLTrainer's hooks.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import torch

from grue.policy.load import frozen_copy
from grue.runtime.distributed import global_sum
from grue.train.rl.nlpo_mask import BOUND_KEY
from grue.train.rl.trainer import RLTrainer


class NLPOTrainer(RLTrainer):
    def extra_models(self) -> dict[str, torch.nn.Module]:
        self.mask_model = frozen_copy(self.policy.model)  # pi_psi, copied whole before any sharding
        self._masks: list[Any] = []  # this iteration's rollout mask processors, for their statistics
        return {"mask_model": self.mask_model}

    def _mask(self, prompts: Any, gen: Any, beams: int = 1) -> Any:
        nlpo = self.cfg.nlpo
        mask = self.policy.mask_processor(self.mask_model, prompts, nlpo.top_p, nlpo.min_tokens_to_keep,
                                          self.policy.special_token_ids(), beams)
        mask.top_k = int(gen.top_k or 0) if gen.do_sample else 0
        return mask

    def rollout_processors(self, prompts: Any) -> Sequence[Any]:
        """The rollout's mask for one generate() call; its statistics are logged per iteration."""
        mask = self._mask(prompts, self.cfg.rollout)
        self._masks.append(mask)
        return [mask]

    def eval_processors(self, prompts: Any) -> list[Any]:
        """The mask for evaluation decoding, with the current masking model: the reference code
        evaluates NLPO through the same masked generation it samples with."""
        return [self._mask(prompts, self.cfg.generation, int(self.cfg.generation.num_beams))]

    def evaluation_processors(self) -> Optional[Callable[[Any], Sequence[Any]]]:
        return self.eval_processors if self.cfg.nlpo.mask_at_eval else None

    def generating_models(self) -> list[torch.nn.Module]:
        return [self.policy.model, self.mask_model]

    def algorithm_stats(self) -> dict[str, float]:
        """Share of this iteration's sampling steps at which the mask changed the candidates."""
        steps, bound = global_sum([sum(m.steps for m in self._masks), sum(m.bound for m in self._masks)], self.world)
        self._masks = []
        return {BOUND_KEY: bound / steps} if steps else {}

    def after_iteration(self) -> None:
        if self.cfg.nlpo.refresh == "paper" and self.iteration % self.cfg.nlpo.update_every == 0:
            self.mask_model.load_state_dict(self.policy.model.state_dict())
