"""Fixes that change an algorithm's numbers at the same settings, and which runs were made before them.

A config hash fixes what a run trains, not the code that trained it, so a finished run is never made again by
`grue sweep`. When a fix changes what the same settings compute, the runs made before it are still complete,
and a study run across sessions mixes both kinds in one row. Each such fix is a numbered revision here; a run
records the latest number it was made with (results.json `code_revision`), and the board names the rows that
have seeds from before a revision that applies to them (grue/board/tables/provenance_table.py). Runs written
before the field existed are placed by their recorded commit, where this checkout's git history knows it.

Add a revision only for a change of numbers at unchanged settings; a new setting is a new hash, not a revision.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

from grue.train.variants import samples_through_nlpo_mask


@dataclass(frozen=True)
class Revision:
    number: int
    commit: str                       # the commit that made the change: runs without code_revision are placed by it
    applies_to: Callable[[str], bool]  # algorithm name -> whether its numbers changed
    what: str


# Revision 1's per-row top-k choice also changes other algorithms' draws, yet it is not theirs: where a row's k-th
# and (k+1)-th values tie, the whole batch used to take the whole-vocabulary path, which keeps the same tokens with
# the same probabilities but maps a uniform to a token in id order, not by value. The distribution is unchanged,
# so a run made before it is another draw of the same run, as another seed's is, and a row may mix both. Only NLPO's
# claim rests on the draw itself: a mask that removes nothing trains PPO's run exactly, token for token. (Seen on the
# board study's IMDB Supervised seed 0: the same weights, decoded before and after it, drew the same validation
# texts and other test texts from one tie onwards.)
REVISIONS = (
    Revision(1, "448c158", samples_through_nlpo_mask,
             "NLPO's mask drops ended rows with the policy and top-k's path is chosen per row, so a mask that never "
             "binds trains PPO's run exactly (before, such a run could drift from PPO's by rounding or draw another "
             "token)"),
)
CURRENT = max(r.number for r in REVISIONS)
_REPO = Path(__file__).resolve().parents[2]
_COMMIT_ID = re.compile(r"[0-9a-f]{7,40}")


def is_commit_id(value: Any) -> bool:
    """A hex commit id (7-40 characters): the only form of a recorded git_commit that reaches git or a file name,
    since a results file may be a submitter's (never an option, a revision expression or a path)."""
    return isinstance(value, str) and _COMMIT_ID.fullmatch(value) is not None


@lru_cache(maxsize=None)
def _is_ancestor(older: str, newer: str) -> Optional[bool]:
    """Whether commit `older` is in `newer`'s history, by this checkout's git; None where git cannot tell."""
    try:
        out = subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], capture_output=True, timeout=10,
                             cwd=_REPO)
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: True, 1: False}.get(out.returncode)


def revision_of(doc: Mapping[str, Any]) -> Optional[int]:
    """The latest revision a run's results document was made with; None when it cannot be told."""
    if doc.get("code_revision") is not None:
        return int(doc["code_revision"])
    commit = doc.get("git_commit")
    if not is_commit_id(commit):
        return None
    made = 0
    for revision in sorted(REVISIONS, key=lambda r: r.number):
        known = _is_ancestor(revision.commit, commit)
        if known is None:
            return None
        if known:
            made = revision.number
    return made


def missed_revisions(doc: Mapping[str, Any], algo: str) -> tuple[list[Revision], bool]:
    """The revisions that change `algo`'s numbers and came after the run, and whether that is certain (False:
    its commit is unknown here, so every applicable revision is listed as possibly missed)."""
    applicable = [r for r in REVISIONS if r.applies_to(algo)]
    if not applicable:
        return [], True
    made = revision_of(doc)
    if made is None:
        return applicable, False
    return [r for r in applicable if r.number > made], True
