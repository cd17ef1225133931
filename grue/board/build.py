"""Everything the exporters show, computed once: the Board.

collect -> per-seed frame -> aggregate (+ the paper's reference rows) -> normalisation fitted per
pool -> entry scores -> selection by validation -> overall board and win rates -> pairwise tests
and Table 2 answers. Exporters only format what is here, so every format shows the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import pandas as pd

from grue.board.numbers.aggregate import aggregate, seed_frame
from grue.board.numbers.collect import Collection, collect
from grue.board.numbers.normalise import PoolFit
from grue.board.numbers.overall import headline, overall_board, raw_values, score_intervals
from grue.board.numbers.pairwise import pairwise_tests, selected_seeds
from grue.board.numbers.questions import answer_questions
from grue.board.numbers.reference import PAPER, reference_frame
from grue.board.numbers.scores import entry_scores, fit_pools, seed_scores
from grue.board.numbers.selection import chosen_entries, report_splits, select
from grue.board.task_info import grue_tasks, ordered_tasks

RUNS = "runs"  # the `source` of the user's own rows


@dataclass
class BoardOptions:
    """How the board is computed; every choice is printed with the board."""

    normalisation: str = "fixed"
    rewards: str = "select"
    split: str = "test"
    with_paper: bool = True
    studies: tuple[str, ...] = ()  # human-study directories (grue human): the site's "Human studies" page
    qualify: bool = True  # human studies: count only raters who pass the study's qualification rules


@dataclass
class Board:
    """All computed frames; see each module for its columns."""

    run_dirs: list[Path]
    options: BoardOptions
    found: Collection
    seeds: pd.DataFrame        # per run, split, metric
    agg: pd.DataFrame          # runs and paper rows, per entry, split, metric (column `source`)
    entries: pd.DataFrame      # scores per entry and split
    fits: dict[tuple, PoolFit]  # (source, profile, task, split) -> the normalisation fitted on that pool
    splits: dict[tuple, str]   # (source, profile, task) -> reported split
    selection: pd.DataFrame
    overall: pd.DataFrame
    tests: pd.DataFrame
    questions: pd.DataFrame
    intervals: dict[tuple, tuple[int, float, float]]  # overall per-task cells: seeds and 95% CI (overall.py)
    notes: list[str] = field(default_factory=list)

    @property
    def tasks(self) -> list[str]:
        return ordered_tasks(self.agg["task"])


def holds_grue_task(ours: pd.DataFrame) -> bool:
    """Whether the paper's rows belong on a board of `ours`: it holds a GRUE task, or no run at all (the
    paper's own board). A board of a user's tasks alone gets none (issue 47: 270 lines of the paper's rows
    came before the user's 2)."""
    return ours.empty or bool(set(ours["task"]) & set(grue_tasks()))


def build_board(run_dirs: Sequence[Path], options: BoardOptions | None = None) -> Board:
    """Collect and compute the whole board from run directories."""
    options = options or BoardOptions()
    found = collect(run_dirs)
    seeds = seed_frame(found.runs)
    ours = aggregate(seeds).assign(source=RUNS)
    frames = [ours]
    paper_rows = options.with_paper and holds_grue_task(ours)
    if paper_rows:
        frames.append(reference_frame().drop(columns=["main"]))
    agg = pd.concat([f for f in frames if not f.empty], ignore_index=True) if any(not f.empty for f in frames) else ours
    fits = fit_pools(agg, options.normalisation)
    entries = entry_scores(agg, fits)
    splits = report_splits(entries, options.split)
    selection = select(entries, options.split)
    chosen = chosen_entries(entries, selection, options.rewards, options.split)
    ranked = headline(chosen, agg)  # labelled rows keep their tables, not a rank (overall.py)
    overall = overall_board(ranked, raw_values(agg, ranked), agg)
    per_seed = seed_scores(seeds, fits, RUNS)
    picked = selected_seeds(per_seed, selection, splits)
    notes = [f"normalisation: {options.normalisation}; rewards: {options.rewards}; "
             f"reported split: {options.split} where present, else validation"]
    if found.setting_keys:
        split_by = "; ".join(f"{task} {algo}: {', '.join(keys)}" for (task, algo, *_), keys in sorted(found.setting_keys.items()))
        notes.append(f"rows are split by setting (one row per config, seeds of one setting only) where runs differ in: {split_by}")
    if paper_rows:
        notes.append(f"rows with source '{PAPER}' are the paper's published numbers, scored in their own pool")
    elif options.with_paper:
        notes.append("no paper rows: these runs hold none of GRUE's tasks, so the paper's numbers would compare "
                     "with nothing here")
    # The CI of an averaged entry would describe one candidate, not the average: only `select` has one.
    intervals = score_intervals(picked) if options.rewards == "select" else {}
    return Board(list(map(Path, run_dirs)), options, found, seeds, agg, entries, fits, splits, selection, overall,
                 pairwise_tests(picked), answer_questions(picked, seeds, per_seed), intervals, notes)
