"""Training objectives of a reward model.

`comparison_loss` is spec §7.1's loss: for a query x with candidates y_0..y_{k-1} of which the
labeler chose y_b, -log( e^{r(x,y_b)} / sum_i e^{r(x,y_i)} ), a softmax cross-entropy over the k
candidates (k = 2 is the Bradley-Terry pairwise loss). `classifier_loss` is the paper's CommonGen
preference model (spec §2.2): each candidate is a binary example, chosen 1 and the others 0.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def comparison_loss(rewards: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
    """Mean negative log-probability of the chosen candidate; `rewards` is [N, k], `chosen` [N]."""
    return F.cross_entropy(rewards, chosen)


def classifier_loss(logits: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
    """Mean binary cross-entropy of 'this candidate was chosen' over all N*k candidates."""
    targets = F.one_hot(chosen, logits.shape[1]).to(logits.dtype)
    return F.binary_cross_entropy_with_logits(logits, targets)


OBJECTIVES = {"comparison": comparison_loss, "classifier": classifier_loss}
