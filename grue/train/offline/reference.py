"""The frozen reference's log-probs of DPO's candidates, computed once and kept with the preferences.

pi_ref never changes during a DPO run, so log pi_ref(y|x) of a candidate is the same number at every step
and at every held-out evaluation: scoring it there again would spend a forward pass per candidate per
visit for nothing. Each wanted comparison is scored once, without gradients, in chunks of comparisons
in the file's order, and its values are written into its Preference (`reference`), which the trainer
reads instead of running the reference.

The chunks do not depend on the batches, the seeded order or the number of processes. With several
processes each takes every world-th chunk and the values are summed over ranks, every other rank adding
zeros (exact in float64), so every process ends with every value: whichever rank's block of a batch
holds a comparison, the same numbers are there.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Sequence

import torch

from grue.runtime.distributed import global_sum
from grue.train.offline.preferences import Preference

# (comparisons) -> ([N, k] summed log-probs, 0 in absent slots; [N, k] presence mask)
Scorer = Callable[[Sequence[Preference]], tuple[torch.Tensor, torch.Tensor]]


def unscored(preferences: Sequence[Preference], wanted: Sequence[int]) -> list[int]:
    """The `wanted` indices whose comparison has no reference values yet, in order."""
    return sorted({i for i in wanted if preferences[i].reference is None})


def with_reference(preferences: Sequence[Preference], wanted: Sequence[int], score: Scorer, chunk: int,
                   rank: int = 0, world: int = 1,
                   progress: Optional[Callable[[int], None]] = None) -> list[Preference]:
    """`preferences` with `reference` filled in at the `wanted` indices that lack it (the rest as they were).
    Every process must call it with the same arguments (the values are summed over ranks). `progress` is
    told, after each chunk this process scores, how many of the unscored comparisons the chunks up to it
    hold (all processes move through the chunks together)."""
    out = list(preferences)
    todo = unscored(out, wanted)
    chunks = [todo[at:at + chunk] for at in range(0, len(todo), chunk)]
    starts, flat_size = {}, 0  # where each comparison's values start in one flat list
    for i in todo:
        starts[i], flat_size = flat_size, flat_size + len(out[i].candidates)
    flat = [0.0] * flat_size
    for number, ids in enumerate(chunks):
        if number % world != rank:
            continue
        with torch.no_grad():
            logps, present = score([out[i] for i in ids])
        for row, i in enumerate(ids):
            values = logps[row][present[row]].tolist()
            flat[starts[i]:starts[i] + len(values)] = values
        if progress is not None:
            progress(min(len(todo), (number + 1) * chunk))
    flat = global_sum(flat, world)
    for i in todo:
        values = tuple(flat[starts[i]:starts[i] + len(out[i].candidates)])
        out[i] = dataclasses.replace(out[i], reference=values)
    return out


def reference_matrix(batch: Sequence[Preference], like: torch.Tensor) -> torch.Tensor:
    """The batch's cached values as [N, k] in `like`'s dtype and device, 0 in absent slots (as scoring
    gives them). A float32 value survives the float round trip exactly."""
    k = like.shape[1]
    missing = [p.query_id for p in batch if p.reference is None]
    if missing:
        raise RuntimeError(f"DPO: no cached reference log-probs for {missing[:3]} (cache them before the step)")
    rows = [list(p.reference) + [0.0] * (k - len(p.reference)) for p in batch]
    return torch.tensor(rows, dtype=like.dtype, device=like.device)
