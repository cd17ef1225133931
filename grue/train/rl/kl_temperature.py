"""The temperature at which the KL to the reference is measured (`kl.temperature`).

Ziegler et al. 2019 divide the pretrained model's logits by the sampling temperature T and make that
the initial policy and the reference rho, so the KL penalty compares the tempered policy with the
tempered reference: both start as the same distribution, the one the rollouts are sampled from.
grue's KL compares the policy's own (temperature 1, unmasked) distribution with the reference's at
temperature 1; both start equal too, but the log-ratio the penalty sees during training is that of
the untempered distributions, not of the ones sampled from.

`kl.temperature`:
- null (default): temperature 1 on both sides, as every run before this setting.
- `sampling`: the rollout's sampling temperature (`rollout.temperature`; 1 under greedy decoding),
  Ziegler's form.
- a positive number: that temperature.
At T the KL's two log-probs are log softmax(logits / T) at the taken action, over the whole
vocabulary (no top-k/top-p, no NLPO mask), for the policy and for the reference alike. Every KL of
the run uses it: the reward penalty, the log-ratio logged as `kl` / `kl_per_episode`, the adaptive
controller's input, and a critic-free method's KL term in its loss. The units do not change: nats per
token (`kl`) and per episode (`kl_per_episode`).

Cost: at T != 1 the rollout runs one more forward pass of the policy (its recorded log-probs are the
temperature-1 ones) besides the reference's.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional

import torch

SAMPLING = "sampling"


def check_kl_temperature(value: Any) -> None:
    """The config rule: null, `sampling`, or a positive finite number (KeyError with the reason otherwise)."""
    if value is None or value == SAMPLING:
        return
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return
    raise KeyError(f"must be null, {SAMPLING} or a positive number (the KL's temperature), got {value!r}")


def kl_temperature(setting: Any, sampling_temperature: float) -> float:
    """The temperature `setting` (kl.temperature) means for a rollout sampled at `sampling_temperature`."""
    if setting is None:
        return 1.0
    if setting == SAMPLING:
        return float(sampling_temperature)
    return float(setting)


def tempered_log_probs(policy: Any, model: Any, rollout: Any, temperature: float) -> torch.Tensor:
    """log softmax(logits / temperature) of `model` at the rollout's actions [B, T], whole vocabulary.
    At temperature 1 this is `policy.raw_log_probs`, the path every run before kl.temperature took."""
    if temperature == 1.0:
        return policy.raw_log_probs(model, rollout)
    # The sampling-distribution path with no action mask and the KL's temperature is exactly the tempered
    # full-vocabulary log-softmax (chunked, no [B, T, V] tensor); its entropy is not needed.
    unmasked = dataclasses.replace(rollout, action_mask=None, temperature=float(temperature))
    logp, _, _ = policy.action_stats(model, unmasked, entropy_grad=False)
    return logp


@torch.no_grad()
def kl_log_probs(policy: Any, ref_model: Any, rollout: Any, setting: Optional[Any]) -> tuple[Any, torch.Tensor]:
    """(the rollout with `raw_logp` at the KL's temperature, the reference's log-probs at it [B, T]).

    `raw_logp` is what every KL reads as the policy's side; at temperature 1 the rollout comes back
    as it is (the log-probs recorded while sampling)."""
    temperature = kl_temperature(setting, rollout.temperature)
    ref_logp = tempered_log_probs(policy, ref_model, rollout, temperature)
    if temperature != 1.0:
        own = tempered_log_probs(policy, policy.model, rollout, temperature)
        rollout = dataclasses.replace(rollout, raw_logp=torch.where(rollout.valid > 0, own, torch.zeros_like(own)))
    return rollout, ref_logp
