"""Critics: a separate LM trunk with a scalar head (the paper's choice, section B.2) or a head on the
policy's own trunk (cheaper: one forward pass serves both)."""
from __future__ import annotations

from typing import Any, Optional

import torch
from torch import nn

from grue.policy.batch import Rollout


class ValueHead(nn.Module):
    """Maps a hidden state to a scalar; newly initialised as in the paper (bias-free like the reference).

    The weights start 100x smaller than a default layer's: LM hidden states have norms of ~40
    (SmolLM2), so a default random head predicts values of +-2 for rewards in [0, 1], and that noise
    swamps the advantages until the critic catches up at the policy's small learning rate.
    """

    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.linear = nn.Linear(hidden_size, 1, bias=False)
        nn.init.normal_(self.linear.weight, std=0.01 / hidden_size ** 0.5)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self.linear(states.float()).squeeze(-1)


class SeparateValue(nn.Module):
    """V_phi: a copy of the initial LM's trunk (no vocabulary head) plus a scalar head."""

    shared = False

    def __init__(self, trunk: Any, hidden_size: int) -> None:
        super().__init__()
        self.trunk = trunk
        self.head = ValueHead(hidden_size)

    def values(self, policy: Any, rollout: Rollout, policy_states: Optional[torch.Tensor] = None) -> torch.Tensor:
        _, states = policy.forward(self.trunk, rollout.prompts, rollout.actions, rollout.valid, hidden=True)
        return self.head(states)


class SharedValue(nn.Module):
    """A head on the policy's last hidden states; needs them from the policy's own forward pass."""

    shared = True

    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.head = ValueHead(hidden_size)

    def values(self, policy: Any, rollout: Rollout, policy_states: Optional[torch.Tensor] = None) -> torch.Tensor:
        if policy_states is None:  # the trunk's states only: no vocabulary head
            policy_states = policy.hidden_states(policy.model, rollout)
        return self.head(policy_states)
