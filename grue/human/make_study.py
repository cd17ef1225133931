"""`make-study`: sample generations from finished runs and write a study directory.

Every algorithm is judged on the same test prompts (the paper's design), sampled with the study
seed; the sample size defaults to the paper's per task. One run per algorithm: the lowest seed
unless the runs were filtered beforehand. Attention checks (gold items) carry their expected answer
in their own text, so a rater who reads them cannot miss it.
"""
from __future__ import annotations

import os
import random
import secrets
from dataclasses import dataclass
from pathlib import Path

from grue.board.numbers.collect import Run, collect
from grue.human.answers import register_raters
from grue.human.db import open_database
from grue.human.order import assign
from grue.human.protocol import protocol_for
from grue.human.study import LINKS_FILE, STUDY_FILE, Candidate, Item, Kind, Study, StudyError
from grue.storage.atomic import atomic_write_text
from grue.storage.run_layout import predictions_file, predictions_name

SPLIT = "test"  # raters judge the test split's generations
GOLD_SYSTEM = "gold"
GOLD_RATINGS = (1, 2, 4, 5)  # never the scale's middle, which an inattentive rater might pick anyway


@dataclass(frozen=True)
class StudyRequest:
    kind: Kind
    task: str
    runs: tuple[Path, ...]
    algos: tuple[str, ...] = ()  # empty: every algorithm found
    samples: int | None = None  # None: the paper's size for the task
    raters_per_item: int = 3
    pool: int | None = None  # raters in the pool; None: raters_per_item
    gold: int = 2
    seed: int = 0


def _one_run_per_algo(request: StudyRequest) -> list[Run]:
    found = [r for r in collect(request.runs).runs if r.task == request.task]
    if not found:
        raise StudyError(f"no finished {request.task} runs under {', '.join(map(str, request.runs))}")
    profiles = {r.profile for r in found}
    if len(profiles) > 1:
        raise StudyError(f"runs of several profiles ({', '.join(sorted(profiles))}); point runs= at one profile")
    wanted = request.algos or tuple(sorted({r.algo for r in found}))
    chosen = []
    for algo in wanted:
        runs = sorted((r for r in found if r.algo == algo), key=lambda r: (r.seed, str(r.path)))
        if not runs:
            raise StudyError(f"no finished {request.task} run of {algo}; found: "
                             f"{', '.join(sorted({r.algo for r in found}))}")
        chosen.append(runs[0])
    minimum = 2 if request.kind == "comparisons" else 1
    if len(chosen) < minimum:
        raise StudyError(f"a {request.kind} study needs at least {minimum} algorithms, got {len(chosen)}")
    return chosen


def _predictions(run: Run) -> dict[str, dict]:
    """id -> prediction row of a run's test split; a file with a line lacking its id, prompt or
    generation (or of the wrong type) is refused with every such line, never half read."""
    from grue.storage.inputs import Field, InputError, read_records

    path = predictions_file(run.path, SPLIT)
    if not path.exists():
        raise StudyError(f"{run.path} has no {predictions_name(SPLIT)}")
    try:
        rows = read_records(path, (Field("id", (str, int)), Field("prompt"), Field("generation")), "predictions file")
    except InputError as err:
        raise StudyError(str(err)) from None
    return {str(row["id"]): row for _, row in rows}


def _shared_samples(runs: list[Run], request: StudyRequest, default: int) -> tuple[list[str], list[dict]]:
    tables = [_predictions(run) for run in runs]
    shared = sorted(set.intersection(*(set(t) for t in tables)))
    for sample in shared:
        if len({t[sample]["prompt"] for t in tables}) > 1:
            raise StudyError(f"test sample {sample!r} has different prompts in different runs; "
                             "the runs must share their test split")
    wanted = request.samples if request.samples is not None else default
    if wanted < 1 or wanted > len(shared):
        raise StudyError(f"samples={wanted}: the runs share {len(shared)} test prompts; ask for 1..{len(shared)}")
    return random.Random(f"{request.seed}:samples").sample(shared, wanted), tables


def _gold_items(kind: Kind, count: int, k: int, real: list[Item], rng: random.Random) -> list[Item]:
    golds = []
    for index in range(count):
        base = rng.choice(real)
        if kind == "ratings":
            value = rng.choice(GOLD_RATINGS)
            text = f"This is an attention check. Whatever you read above, rate this text {value} on every scale."
            golds.append(Item("", f"gold-{index}", base.prompt, (Candidate(GOLD_SYSTEM, text),), {"value": value}))
        else:
            choice = rng.randrange(k)
            candidates = list(base.candidates)
            candidates[choice] = Candidate(GOLD_SYSTEM, "This is an attention check: choose this candidate.")
            golds.append(Item("", f"gold-{index}", base.prompt, tuple(candidates), {"choice": choice}))
    return golds


def _with_ids(items: list[Item], seed: int) -> dict[str, Item]:
    """Shuffle, then number: an item id says nothing about which system wrote its text."""
    items = list(items)
    random.Random(f"{seed}:ids").shuffle(items)
    width = len(str(len(items)))
    return {f"item-{i:0{width}d}": Item(f"item-{i:0{width}d}", it.sample_id, it.prompt, it.candidates, it.gold)
            for i, it in enumerate(items, start=1)}


def make_study(out: Path, request: StudyRequest) -> tuple[Study, dict[str, str]]:
    """Write the study under `out`; returns it and each rater's secret token. Never overwrites a study."""
    if (out / STUDY_FILE).exists():
        raise StudyError(f"{out} already holds a study; choose another out= (answers are never overwritten)")
    if request.raters_per_item < 1:
        raise StudyError(f"raters={request.raters_per_item}: every item needs at least one rater")
    protocol = protocol_for(request.task)
    runs = _one_run_per_algo(request)
    samples, tables = _shared_samples(runs, request, protocol.samples)
    systems = {f"s{i}": {"algo": r.algo, "seed": r.seed, "reward": r.reward, "profile": r.profile,
                         "run": str(r.path)} for i, r in enumerate(runs, start=1)}
    real: list[Item] = []
    for sample in samples:
        prompt = tables[0][sample]["prompt"]
        texts = [Candidate(system, table[sample]["generation"]) for system, table in zip(systems, tables)]
        if request.kind == "ratings":
            real.extend(Item("", sample, prompt, (text,)) for text in texts)
        else:
            real.append(Item("", sample, prompt, tuple(texts)))
    golds = _gold_items(request.kind, request.gold, len(systems), real, random.Random(f"{request.seed}:gold"))
    study = Study(out, request.kind, request.task, protocol.to_dict(request.kind), request.seed, request.raters_per_item,
                  systems, _with_ids(real + golds, request.seed))
    pool = request.pool or request.raters_per_item
    rater_ids = [f"rater-{i:02d}" for i in range(1, pool + 1)]
    judged = [item.id for item in study.judged_items()]
    gold_ids = [item.id for item in study.items.values() if item.gold is not None]
    lists = assign(judged, gold_ids, rater_ids, request.raters_per_item, request.seed)
    tokens = {rater: secrets.token_urlsafe(18) for rater in rater_ids}
    study.save()
    register_raters(open_database(study.db_path), lists, tokens)
    links = out / LINKS_FILE
    atomic_write_text(links, "".join(f"{rater} /r/{token}\n" for rater, token in tokens.items()))
    os.chmod(links, 0o600)  # the links are the raters' only credentials
    return study, tokens
