"""A comparisons study's answers as records of the learned-reward comparisons file
(`grue.rewards.learned.comparisons`, docs/learned_rewards.md), so human choices train reward models.

One record per rater and item (attention checks left out), candidates in the order that rater saw
them, `chosen` indexing that order; `source` is the run directory that wrote each candidate, and
`labeler` is `human:<rater id>`. Records are appended: exporting again adds the same answers
again, which readers take as those labelers' latest (identical) answers.
"""
from __future__ import annotations

from pathlib import Path

from grue.human.frame import stored_answers
from grue.human.study import Study, StudyError
from grue.rewards.learned.comparisons import Candidate, Comparison, append_comparisons, read_comparisons


def comparison_records(study: Study, excluded: set[str] = frozenset()) -> list[Comparison]:
    if study.kind != "comparisons":
        raise StudyError(f"{study.root} is a {study.kind} study; only comparisons studies export comparisons")
    records = []
    for row in stored_answers(study):
        item = study.items[row["item"]]
        if item.gold is not None or row["rater"] in excluded:
            continue
        order = row["answer"]["order"]
        candidates = tuple(Candidate(item.candidates[i].text, study.systems[item.candidates[i].system]["run"])
                           for i in order)
        records.append(Comparison(
            query_id=f"{study.root.name}:{item.id}", prompt=item.prompt, candidates=candidates, task=study.task,
            sample_id=item.sample_id, chosen=order.index(row["answer"]["choice"]), labeler=f"human:{row['rater']}",
            time_s=row["seconds"], notes=f"grue human study {study.root.name} ({row['source']})"))
    return records


def export_comparisons(study: Study, out: Path, excluded: set[str] = frozenset()) -> int:
    """Append the study's answers to the comparisons file `out`; returns how many records. An existing
    `out` must be a comparisons file: appending JSON lines to anything else would spoil it."""
    read_comparisons(out)  # a ComparisonsFormatError (every bad line) before anything is appended
    return append_comparisons(out, comparison_records(study, excluded))
