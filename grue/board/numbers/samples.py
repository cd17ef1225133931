"""Sample generations side by side: the same prompts, one column per algorithm.

Numbers hide reward hacking; reading generations shows it (the paper's IMDB "no KL" models repeat
"I highly recommend this movie"). For each algorithm the selected entry's lowest seed is shown, on
validation predictions (predictions/val.jsonl: id, prompt, generation, references, scores).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from grue.board.numbers.collect import Run
from grue.board.task_info import algo_rank
from grue.storage.run_layout import predictions_file, read_jsonl

SPLIT = "val"  # the side-by-side samples are validation generations (see above)


@dataclass
class Sample:
    """One prompt with its references and each algorithm's generation and per-sample scores."""

    id: str
    prompt: str
    references: list[str]
    generations: dict[str, tuple[str, dict[str, float]]] = field(default_factory=dict)


def _pick_runs(runs: list[Run], selection: pd.DataFrame, task: str, profile: str) -> dict[str, Run]:
    chosen = selection[(selection["source"] == "runs") & (selection["task"] == task) & (selection["profile"] == profile)]
    wanted = {(r.algo, r.reward, r.init_model, r.setting) for r in chosen.itertuples()}
    picked: dict[str, Run] = {}
    for run in sorted(runs, key=lambda r: r.seed):
        if run.task == task and run.profile == profile and (run.algo, run.reward, run.init_model, run.setting) in wanted:
            picked.setdefault(run.algo, run)
    return dict(sorted(picked.items(), key=lambda kv: algo_rank(kv[0])))


def side_by_side(runs: list[Run], selection: pd.DataFrame, task: str, profile: str, limit: int = 8) -> list[Sample]:
    """Up to `limit` prompts seen by the most algorithms, in the first algorithm's file order."""
    per_algo: dict[str, dict[str, dict[str, Any]]] = {}
    for algo, run in _pick_runs(runs, selection, task, profile).items():
        lines = [l for l in read_jsonl(predictions_file(run.path, SPLIT)) if "id" in l]
        if lines:
            per_algo[algo] = {str(l["id"]): l for l in lines}
    if not per_algo:
        return []
    order = list(next(iter(per_algo.values())))
    coverage = {i: sum(i in lines for lines in per_algo.values()) for i in order}
    ids = sorted(order, key=lambda i: -coverage[i])[:limit]
    ids.sort(key=order.index)
    samples = []
    for sample_id in ids:
        first = next(lines[sample_id] for lines in per_algo.values() if sample_id in lines)
        refs = first.get("references") or []
        sample = Sample(sample_id, str(first.get("prompt", "")), [str(r) for r in (refs if isinstance(refs, list) else [refs])])
        for algo, lines in per_algo.items():
            if sample_id in lines:
                line = lines[sample_id]
                scores = line.get("scores") if isinstance(line.get("scores"), dict) else {}
                sample.generations[algo] = (str(line.get("generation", "")),
                                            {k: v for k, v in scores.items() if isinstance(v, (int, float))})
        samples.append(sample)
    return samples
