"""How often NLPO's mask bound in the board's NLPO rows: the fact behind any NLPO-vs-PPO answer.

With the paper's settings (the mask keeps at least 100 tokens, rollouts sample from the policy's top 50 or top
10) the mask can only bind where the policy's top-k leave the masking model's kept set, and at the mini budgets
it hardly does: a CommonGen mini NLPO run was PPO's run bit for bit. A "Supervised+NLPO > Supervised+PPO?"
answer then compares PPO with itself, and the reader has to be told. Each run's figure is results.json's
`nlpo_mask.mean_bound_fraction` (grue/train/rl/nlpo_mask.py), or the same computed from its logs/train.jsonl
for runs written before that field.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Optional

from grue.board.numbers.collect import Run
from grue.board.task_info import algo_label, algo_rank, ordered_tasks
from grue.results.same_scores import SAME_SCORE, same_metrics
from grue.storage.run_layout import read_jsonl, train_log
from grue.train.rl.nlpo_mask import mask_results
from grue.train.variants import samples_through_nlpo_mask


def bound_fraction(run: Run) -> Optional[float]:
    """The run's mean share of sampling steps at which the mask changed the candidates; None without a mask."""
    record = run.doc.get("nlpo_mask")
    # written before the field: its train log ([] when it has none), read only for runs that sample through a mask
    if record is None and samples_through_nlpo_mask(run.algo):
        record = mask_results(read_jsonl(train_log(run.path))).get("nlpo_mask")
    return None if record is None else float(record["mean_bound_fraction"])


def _same_as(run: Run, twin: str, by_cell: dict[tuple, list[Run]]) -> bool:
    """Whether `twin`'s run of the same task, profile, start and seed reports the same metrics as `run`."""
    twins = by_cell.get((run.profile, run.task, twin, run.init_model, run.seed), [])
    return any(same_metrics(twin.doc.get("metrics"), run.doc.get("metrics")) for twin in twins)


def binding_note(runs: Iterable[Run]) -> str:
    """One sentence per profile and task with NLPO rows: each row's mean over seeds, and how many of its seeds
    equal the unmasked variant's run of the same seed in every metric; '' when no run masked."""
    from grue.train.variants import without_mask

    runs = list(runs)
    by_cell: dict[tuple, list[Run]] = defaultdict(list)
    for run in runs:
        by_cell[(run.profile, run.task, run.algo, run.init_model, run.seed)].append(run)
    found: dict[tuple[str, str], dict[str, list[tuple[float, bool]]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        value = bound_fraction(run)
        if value is not None:
            label = algo_label(run.algo) + (f" ({run.setting_label})" if run.setting_label else "")
            twin = without_mask(run.algo)
            found[(run.profile, run.task)][(algo_rank(run.algo), label, twin)].append(
                (value, _same_as(run, twin, by_cell)))
    if not found:
        return ""
    parts = []
    for profile in sorted({p for p, _ in found}):
        for task in ordered_tasks({t for p, t in found if p == profile}):
            rows = found[(profile, task)]
            parts.append(f"{task} ({profile}): " + ", ".join(_row_text(label, twin, seeds)
                                                              for (_, label, twin), seeds in sorted(rows.items())))
    return ("NLPO's mask, the share of sampling steps at which it removed one of the sampler's candidates (mean over "
            "iterations and seeds; results.json nlpo_mask), and how many seeds equal the unmasked method's run of "
            f"the same seed in every metric (to {SAME_SCORE:g}: a scorer rounds differently at another commit): "
            + "; ".join(parts) + ". At 0 the mask removed nothing from the "
            "rollouts and NLPO trained as PPO, but its evaluation still decodes through the mask (nlpo.mask_at_eval), "
            "which can bind there (where evaluation samples from the whole vocabulary, say). A seed equal to the "
            "unmasked run in every metric is that run; where every seed is, a question comparing NLPO with PPO "
            "compares PPO with itself. A seed can also differ from PPO's where it was made before NLPO's mask dropped ended rows with the policy (its "
            "batches were then another shape, so its log-probabilities rounded differently until a sampled token "
            "flipped) or before top-k's path was chosen per row (its draws could differ outright).")


def _row_text(label: str, twin: str, seeds: list[tuple[float, bool]]) -> str:
    mean = sum(v for v, _ in seeds) / len(seeds)
    same = sum(equal for _, equal in seeds)
    return (f"{label} {mean:.4f} ({len(seeds)} seed{'s' if len(seeds) > 1 else ''}; "
            f"{same} equal {algo_label(twin)}'s)")
