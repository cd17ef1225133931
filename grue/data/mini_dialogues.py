"""Mini DailyDialog: real hand-written English dialogues from `chatterbot-corpus` (about 2,000, 21 topics).

The corpus's YAML files (`conversations: [[turn, turn, ...], ...]`) are read from the installed package
without importing it. Most conversations have two turns, so a mini sample needs only MIN_CONTEXT previous
utterance (the paper needs five). Conversations that open with the same utterance (the corpus lists many
answers to "How are you?") go to the same split, so no prompt is seen in training and scored in test.
chatterbot has no dialogue-act labels: `act` here is a HEURISTIC, 2 (question) for an utterance ending in
"?" and 1 (inform) otherwise, emotion is 0 (none). Rows come out in the hub schema (`dialog`, `act`,
`emotion`).
"""
from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

from grue.data.hub import Row
from grue.data.splits import shuffled

MIN_CONTEXT = 1
INFORM, QUESTION = 1, 2


def corpus_dir() -> Path:
    from grue.assets.errors import AssetMissing

    spec = importlib.util.find_spec("chatterbot_corpus")
    if spec is None or spec.origin is None:
        raise AssetMissing("packaged:chatterbot-dialogues", "packaged dataset",
                           "the package is not installed; run `make install` or "
                           "`pip install --no-deps chatterbot-corpus==1.3.3`")
    return Path(spec.origin).parent / "data" / "english"


@lru_cache(maxsize=1)
def conversations() -> tuple[tuple[str, ...], ...]:
    """Every conversation of at least two non-empty turns, file by file in name order."""
    import yaml

    found = []
    for path in sorted(corpus_dir().glob("*.yml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for conv in doc.get("conversations") or []:
            if not isinstance(conv, list):
                continue
            turns = tuple(" ".join(str(t).split()) for t in conv if t is not None and str(t).strip())
            if len(turns) >= 2:
                found.append(turns)
    return tuple(found)


def heuristic_act(utterance: str) -> int:
    return QUESTION if utterance.rstrip().endswith("?") else INFORM


def dialogue_rows(seed: int) -> dict[str, list[Row]]:
    """Seeded 80/10/10 split of the conversations, grouped by their opening utterance."""
    groups: dict[str, list[tuple[str, ...]]] = {}
    for conv in conversations():
        groups.setdefault(conv[0].lower(), []).append(conv)
    openings = shuffled(sorted(groups), seed)
    n_train, n_val = int(0.8 * len(openings)), int(0.1 * len(openings))
    parts = {"train": openings[:n_train], "val": openings[n_train:n_train + n_val],
             "test": openings[n_train + n_val:]}
    return {name: [{"dialog": list(conv), "act": [heuristic_act(t) for t in conv], "emotion": [0] * len(conv)}
                   for opening in keys for conv in groups[opening]]
            for name, keys in parts.items()}
