"""The paper's six algorithms (grue_spec.md section 3), registered in the paper's table order.

`reads` lists the config groups each one reads beyond the common ones; it is exactly what its
config hash covers, and these six lists reproduce the hashes runs had before the registry existed
(tests/config/test_hash_stability.py), so existing run directories are still found and resumed.
"""
from __future__ import annotations

from grue.train.registry import Algorithm, register_algorithm

RL_GROUPS = ("ppo", "kl", "rollout")
_PPO = "grue.train.rl.trainer:RLTrainer"
_NLPO = "grue.train.rl.nlpo:NLPOTrainer"
_SUPERVISED = "grue.train.supervised.trainer:SupervisedTrainer"

for _algo in (
    Algorithm("zero_shot", "Zero-Shot", "#9e9e9e", trains="nothing", paper=True,
              description="the initial model, evaluated as it is"),
    Algorithm("supervised", "Supervised", "#4c72b0", trains="supervised", reads=("supervised",),
              trainer=_SUPERVISED, paper=True, description="fine-tuning on the references"),
    Algorithm("ppo", "PPO", "#dd8452", trains="rl", reads=RL_GROUPS, trainer=_PPO, paper=True,
              description="PPO-clip with a critic, GAE and a per-token KL penalty (paper section 3)"),
    Algorithm("nlpo", "NLPO", "#55a868", trains="rl", reads=RL_GROUPS + ("nlpo",), trainer=_NLPO, paper=True,
              description="PPO with a top-p action mask from a periodically refreshed copy of the policy"),
    Algorithm("supervised_ppo", "Supervised+PPO", "#c44e52", trains="rl", reads=RL_GROUPS + ("supervised",),
              trainer=_PPO, warm_start="supervised", paper=True,
              description="PPO from the supervised run with the same settings and seed"),
    Algorithm("supervised_nlpo", "Supervised+NLPO", "#8172b3", trains="rl",
              reads=RL_GROUPS + ("nlpo", "supervised"), trainer=_NLPO, warm_start="supervised", paper=True,
              description="NLPO from the supervised run with the same settings and seed"),
):
    register_algorithm(_algo)
