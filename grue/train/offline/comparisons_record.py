"""results.json `comparisons`: which comparisons file a preference run (DPO) trained on, and who answered it.

A hand-made file and a made one (dpo.comparisons=auto) are recorded alike: where the file is, its SHA-256
as read when the results are written, its labelers and how many queries and answers it holds; a made file
adds `made: true` and its recipe's digest (the run's dpo.comparisons_sha256, its folder's recipe.json). The
board shows the record as the row's `comparisons` fact (grue/board/numbers/run_facts.py).
"""
from __future__ import annotations

import hashlib
from typing import Any

KEY = "comparisons"


def comparisons_fields(cfg: Any) -> dict[str, Any]:
    """{"comparisons": {...}} for a run that trains on a comparisons file; {} for any other run."""
    from grue.train.registry import get_algorithm

    if get_algorithm(cfg.algo).trains != "preferences" or not cfg.dpo.comparisons:
        return {}
    from grue.rewards.learned.comparisons import latest_answers, read_comparisons
    from grue.train.offline.auto_recipe import comparisons_path, is_auto

    path = comparisons_path(cfg)
    records = read_comparisons(path) if path.is_file() else []
    answers = latest_answers(records)
    made = is_auto(cfg.dpo.comparisons)
    return {KEY: {"made": made, "path": str(path),
                  "sha256": hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None,
                  **({"recipe_sha256": cfg.dpo.comparisons_sha256} if made else {}),
                  "labelers": sorted({a.labeler for a in answers if a.labeler}),
                  "queries": sum(r.labeler is None for r in records), "answers": len(answers)}}
