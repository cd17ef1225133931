"""A comparisons file's answers as preference examples: a prompt, its candidates, and the order the
labeler's answer observed (docs/learned_rewards.md for the file; grue/train/offline/dpo_loss.py for the loss).

Every labeler's latest answer to a query is one example, as for a reward model. Queries are held out by a
hash of their id with the reward models' own rule (grue/rewards/learned/training.py), so DPO and a reward
model trained on the same file with the same share hold out the same queries.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from grue.rewards.learned.comparisons import Comparison, latest_answers, read_comparisons
from grue.rewards.learned.training import split_heldout


@dataclass(frozen=True)
class Preference:
    query_id: str
    prompt: str
    candidates: tuple[str, ...]
    order: tuple[int, ...]   # every candidate index, the labeler's choices first
    observed: int            # leading places of `order` the labeler chose: 1 (chosen only) or k - 1 (a ranking)
    # log pi_ref of each candidate once DPO has scored it (grue/train/offline/reference.py); not part of equality
    reference: tuple[float, ...] | None = field(default=None, compare=False)

    @property
    def chosen(self) -> int:
        return self.order[0]


def preference(answer: Comparison) -> Preference:
    """One answered comparison: a ranking observes every place, a choice the first one."""
    k = answer.k
    if answer.ranking is not None:
        order, observed = tuple(answer.ranking), k - 1
    else:
        order, observed = (answer.chosen, *(i for i in range(k) if i != answer.chosen)), 1
    return Preference(answer.query_id, answer.prompt, tuple(c.text for c in answer.candidates), order, observed)


def read_preferences(path: Path | str, heldout: float) -> tuple[list[Preference], list[Preference]]:
    """(training, held-out) examples of a comparisons file, in the order the answers were written."""
    train, held = split_heldout(latest_answers(read_comparisons(Path(path), required=True)), heldout)
    return [preference(a) for a in train], [preference(a) for a in held]


def widest(batch: Sequence[Preference]) -> int:
    return max(len(p.candidates) for p in batch)
