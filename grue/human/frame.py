"""A study's answers as tables for the analysis: one row per judgment, joined with what was judged.

Ratings come out long (one row per rater, item and axis); comparisons one row per rater and item
with the chosen system. `gold` rows are attention checks, with what the right answer was.
"""
from __future__ import annotations

import json

import pandas as pd
from sqlalchemy import select

from grue.human.db import answers, open_database
from grue.human.study import Study

RATING_COLUMNS = ["rater", "item", "sample", "system", "label", "axis", "value", "seconds", "source", "gold"]
CHOICE_COLUMNS = ["rater", "item", "sample", "chosen", "label", "k", "seconds", "source", "gold", "correct"]


def stored_answers(study: Study) -> list[dict]:
    """Every stored answer in the order it was stored: rater, item, answer (parsed), seconds, source."""
    engine = open_database(study.db_path)
    with engine.begin() as conn:
        stored = conn.execute(select(answers.c.rater_id, answers.c.item_id, answers.c.answer, answers.c.seconds,
                                     answers.c.source).order_by(answers.c.id)).all()
    engine.dispose()
    return [{"rater": r, "item": i, "answer": json.loads(a), "seconds": s, "source": src}
            for r, i, a, s, src in stored]


def ratings_frame(study: Study) -> pd.DataFrame:
    """Long table of ratings; `gold` holds the expected value on attention checks, NaN elsewhere."""
    out = []
    for row in stored_answers(study):
        item = study.items[row["item"]]
        system = item.candidates[0].system
        label = study.system_label(system) if item.gold is None else "gold"
        for axis, value in row["answer"].items():
            out.append({"rater": row["rater"], "item": row["item"], "sample": item.sample_id, "system": system,
                        "label": label, "axis": axis, "value": float(value), "seconds": row["seconds"],
                        "source": row["source"], "gold": (item.gold or {}).get("value")})
    return pd.DataFrame(out, columns=RATING_COLUMNS)


def choices_frame(study: Study) -> pd.DataFrame:
    """One row per comparison judgment; `correct` says whether an attention check was passed."""
    out = []
    for row in stored_answers(study):
        item = study.items[row["item"]]
        chosen = item.candidates[row["answer"]["choice"]].system
        gold = item.gold is not None
        out.append({"rater": row["rater"], "item": row["item"], "sample": item.sample_id, "chosen": chosen,
                    "label": "gold" if gold else study.system_label(chosen), "k": len(item.candidates),
                    "seconds": row["seconds"], "source": row["source"], "gold": gold,
                    "correct": (row["answer"]["choice"] == item.gold["choice"]) if gold else None})
    return pd.DataFrame(out, columns=CHOICE_COLUMNS)
