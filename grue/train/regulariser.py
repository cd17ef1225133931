"""Where a run's KL regulariser sits, which estimator it uses and how its coefficient moves, read from a
resolved config as a plain dict (results.json's `config`), so the board and `grue compare` can say
whether two rows were trained under the same regulariser (DESIGN.md section 4, the comparison contract).

Every RL method reads the `kl` group (grue/config/schema.py, KLConfig):
- `kl.placement`: `reward` (a per-token penalty subtracted from the reward, PPO's Eq. 1) or `loss` (a
  term added to the policy loss, GRPO's Eq. 3);
- `kl.estimator`: `k1` (log pi - log pi_ref per sampled token) or `k3` (Schulman's
  pi_ref/pi - log(pi_ref/pi) - 1);
- the coefficient: `kl.init_coef`, adapted towards `kl.target` (in `kl.target_unit`) at rate
  `kl.k_beta`; `kl.k_beta=0` keeps it fixed; `kl.target=null` (or a zero coefficient) is no penalty.
Runs from before `kl.placement` existed read GRPO's own `grpo.kl`/`grpo.beta` (k3 in the loss at a
fixed beta, or the `kl` group in the reward); their configs are read the way they ran.

Imports no torch and no model code: a board reads thousands of results files.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

PLACEMENTS = ("reward", "loss", "none")
ESTIMATORS = ("k1", "k3")
RULES = ("adaptive", "fixed")
# What a config without the newer keys ran: the defaults of the `kl` group's fields added later.
DEFAULT_PLACEMENT, DEFAULT_ESTIMATOR, DEFAULT_UNIT = "reward", "k1", "token"


def _none() -> dict[str, Any]:
    return {"placement": "none", "estimator": None, "rule": None, "coefficient": 0.0, "target": None, "unit": None}


def _trains_rl(config: Mapping[str, Any]) -> bool:
    """Whether the config's algorithm optimises a reward with RL (only those carry a KL term). An
    algorithm not registered here (a plugin not loaded) counts as RL when its config has a `kl` group."""
    from grue.train.registry import find_algorithm

    algo = find_algorithm(str(config.get("algo")))
    if algo is None:
        return isinstance(config.get("kl"), Mapping)
    return algo.trains == "rl"


def _reads_grpo(config: Mapping[str, Any]) -> bool:
    """Whether the config's algorithm reads the `grpo` group. A resolved config holds every group, so a PPO
    run's unread `grpo` section (grpo.kl=loss by default in older files) says nothing about PPO. An
    algorithm not registered here (a plugin not loaded) is taken at its name."""
    from grue.train.registry import find_algorithm

    algo = find_algorithm(str(config.get("algo")))
    if algo is None:
        return "grpo" in str(config.get("algo"))
    return "grpo" in algo.hashed_groups


def _legacy_grpo(config: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """A GRPO run from before the shared `kl.placement`: `grpo.kl=loss` was k3 in the loss at the fixed
    `grpo.beta`; `grpo.kl=reward` was the `kl` group's penalty (None: read the `kl` group)."""
    grpo = config.get("grpo")
    kl = config.get("kl") or {}
    if not isinstance(grpo, Mapping) or "kl" not in grpo or "placement" in kl or not _reads_grpo(config):
        return None
    if grpo["kl"] != "loss":
        return None
    beta = float(grpo.get("beta", 0.04))
    if beta == 0:
        return _none()
    return {"placement": "loss", "estimator": "k3", "rule": "fixed", "coefficient": beta, "target": None,
            "unit": None}


def regulariser_of(config: Mapping[str, Any]) -> dict[str, Any]:
    """The run's regulariser: `placement` (reward | loss | none), `estimator` (k1 | k3), `rule`
    (adaptive | fixed), `coefficient` (the initial beta), and for an adaptive rule its `target` and the
    target's `unit` (token | episode). Non-RL algorithms (zero-shot, supervised, best-of-n, DPO, whose beta
    is its loss's temperature, not a KL penalty) and an RL run without a penalty give placement `none`."""
    if not _trains_rl(config):
        return _none()
    legacy = _legacy_grpo(config)
    if legacy is not None:
        return legacy
    kl = config.get("kl") or {}
    coefficient = float(kl.get("init_coef", 0.1))
    target = kl.get("target", 0.1)
    if target is None or coefficient == 0:  # the paper's "inf" target: beta 0 throughout
        return _none()
    placement = kl.get("placement", DEFAULT_PLACEMENT)
    if placement == "none":
        return _none()
    adaptive = float(kl.get("k_beta", 0.2)) != 0
    return {"placement": placement, "estimator": kl.get("estimator", DEFAULT_ESTIMATOR),
            "rule": "adaptive" if adaptive else "fixed", "coefficient": coefficient,
            "target": float(target) if adaptive else None,
            "unit": kl.get("target_unit", DEFAULT_UNIT) if adaptive else None}


def describe_regulariser(reg: Mapping[str, Any]) -> str:
    """One short line: "k1 in reward, adaptive to 0.5/token from 0.05", "k3 in loss, fixed 0.04", "none"."""
    if reg.get("placement", "none") == "none":
        return "none"
    where = f"{reg['estimator']} in {reg['placement']}"
    if reg.get("rule") == "adaptive":
        return f"{where}, adaptive to {reg['target']:g}/{reg['unit']} from {reg['coefficient']:g}"
    return f"{where}, fixed {reg['coefficient']:g}"
