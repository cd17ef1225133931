"""Per-split data digests: which data a run scored, as a SHA-256 anyone holding the same data can recompute.

Like lm-eval's `task_hashes`: the digest of a split is the SHA-256 of its samples as grue loaded them, in
order, each as [id, prompt, [references...]] in canonical JSON (UTF-8, no spaces, keys sorted). Two boards
(or a board and a submitter) whose digests agree scored the same prompts against the same references;
`grue leaderboard add` refuses a seed whose recorded digest is not the one of the board's own data
(grue/board/submit/claims.py). A sample's `meta` (labels, tables) is left out: metrics read it, but the
id, prompt and references are what a generation is compared with.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable


def split_digest(samples: Iterable[Any]) -> str:
    """SHA-256 of the samples' ids, prompts and references, in their order."""
    rows = [[s.id, s.prompt, list(s.references)] for s in samples]
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
