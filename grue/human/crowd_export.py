"""A study as a crowdsourcing batch: the CSV layout platforms such as Mechanical Turk take as batch
input, one row per item (a task, in the platform's words), each column a field the task template
shows (`${text}`).

One row per item, attention checks included, uploaded with the platform's "assignments per task"
set to the study's raters per item: the platform then gives each item to that many *distinct*
workers, which a row per assignment could not promise (one worker could take every copy of an
item). Comparison candidates are shuffled per item with the study seed; the import finds each chosen
candidate by the texts the row carries. No column names the system behind a text.
"""
from __future__ import annotations

import csv
import io

from grue.human.order import candidate_order
from grue.human.study import Item, Study

CSV_RATER_PREFIX = "csv-slot-"  # the "rater" a row's candidate order is seeded with


def csv_order(study: Study, item: Item, assignment: int) -> list[int]:
    return candidate_order(study.seed, f"{CSV_RATER_PREFIX}{assignment}", item.id, len(item.candidates))


def batch_rows(study: Study) -> list[dict[str, str]]:
    """The batch input rows; comparison rows carry candidate_0..candidate_{k-1} in their shown order."""
    show_prompt = bool(study.protocol["show_prompt"])
    rows = []
    for item in study.items.values():
        row = {"item_id": item.id, "task": study.task, "prompt": item.prompt if show_prompt else "",
               "instructions": " ".join(filter(None, (study.protocol["instructions"], study.protocol.get("criterion"))))}
        if study.kind == "ratings":
            row["text"] = item.candidates[0].text
            row["axes"] = ",".join(study.axes)
        else:
            for position, index in enumerate(csv_order(study, item, 1)):
                row[f"candidate_{position}"] = item.candidates[index].text
        rows.append(row)
    return rows


def batch_csv(study: Study) -> str:
    rows = batch_rows(study)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["item_id"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
