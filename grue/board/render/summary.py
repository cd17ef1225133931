"""CSV and JSON forms of the aggregate: every number, machine-readable, no formatting."""
from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from grue.board.numbers.collect import Skipped


def clean(value: Any) -> Any:
    """JSON has no NaN: undefined statistics (one seed) become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return clean(value.item())
    return value


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Frame rows as plain dicts; an empty reward (no reward optimised) becomes null."""
    out = []
    for row in frame.to_dict(orient="records"):
        row = clean(row)
        if "reward" in row and row["reward"] == "":
            row["reward"] = None
        out.append(row)
    return out


def to_csv(agg: pd.DataFrame) -> str:
    """The aggregate, one line per row, split and metric."""
    return agg.to_csv(index=False)


def skipped_records(skipped: list[Skipped]) -> list[dict[str, Any]]:
    return [{"path": str(s.path), "reasons": list(s.reasons)} for s in skipped]


def to_json(sections: dict[str, Any]) -> str:
    """A JSON document of named sections (rows, skipped, scores, tests...)."""
    doc = {k: (records(v) if isinstance(v, pd.DataFrame) else clean(v)) for k, v in sections.items()}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
