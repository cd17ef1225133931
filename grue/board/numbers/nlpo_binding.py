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
from grue.storage.run_layout import read_jsonl, train_log
from grue.train.rl.nlpo_mask import mask_results


def bound_fraction(run: Run) -> Optional[float]:
    """The run's mean share of sampling steps at which the mask changed the candidates; None without a mask."""
    record = run.doc.get("nlpo_mask")
    if record is None and _masks(run.algo):  # written before the field: its train log ([] when it has none)
        record = mask_results(read_jsonl(train_log(run.path))).get("nlpo_mask")
    return None if record is None else float(record["mean_bound_fraction"])


def _masks(algo: str) -> bool:
    """Whether runs of `algo` sample through NLPO's mask (they read the nlpo group): only their logs are read."""
    from grue.train.registry import find_algorithm

    entry = find_algorithm(algo)
    return entry is not None and "nlpo" in entry.reads


def binding_note(runs: Iterable[Run]) -> str:
    """One sentence per profile and task with NLPO rows: each row's mean over seeds; '' when no run masked."""
    found: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        value = bound_fraction(run)
        if value is not None:
            label = algo_label(run.algo) + (f" ({run.setting_label})" if run.setting_label else "")
            found[(run.profile, run.task)][(algo_rank(run.algo), label)].append(value)
    if not found:
        return ""
    parts = []
    for profile in sorted({p for p, _ in found}):
        for task in ordered_tasks({t for p, t in found if p == profile}):
            rows = found[(profile, task)]
            shown = ", ".join(f"{label} {sum(v) / len(v):.4f} ({len(v)} seed{'s' if len(v) > 1 else ''})"
                              for (_, label), v in sorted(rows.items()))
            parts.append(f"{task} ({profile}): {shown}")
    return ("NLPO's mask, the share of sampling steps at which it removed one of the sampler's candidates (mean over "
            "iterations and seeds; results.json nlpo_mask): " + "; ".join(parts) + ". At 0 the mask removed nothing: "
            "those NLPO runs are PPO runs (their draws may differ from PPO's of the same seed where they were made "
            "before grue's top-k sampling was made per row), so a question comparing NLPO with PPO compares PPO "
            "with itself; near 0, nearly so.")
