"""What a task's loader must return, checked once where a user's loader hands it over.

A loader returns {"train": [...], "val": [...], "test": [...]}, each a list of Samples whose id is a
non-empty text unique within its split, whose prompt is text, and whose references are texts, at least
one non-blank. A Python task file's loader is the user's code and a data file is the user's data: what
either gets wrong is found here, every problem counted and the first few named, instead of surfacing as a
traceback deep in a run (a list where a dict belongs, no test split) or not at all (two samples sharing an
id, whose predictions then overwrite each other; a null prompt decoded as the text "None").
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from grue.data.sample import Sample

SPLITS = ("train", "val", "test")
MAX_SHOWN = 5


def _sample_problems(sample: Any, where: str) -> Iterator[str]:
    if not isinstance(sample, Sample):
        yield f"{where} is a {type(sample).__name__}, not a Sample (grue.data.sample)"
        return
    if not isinstance(sample.id, str) or not sample.id.strip():
        yield f"{where} has id {sample.id!r}: ids are non-empty texts"
    if not isinstance(sample.prompt, str):
        yield f"{where} ({sample.id!r}) has a {type(sample.prompt).__name__} as its prompt, not a text"
    refs = sample.references
    if not isinstance(refs, (tuple, list)) or not all(isinstance(r, str) for r in refs):
        yield f"{where} ({sample.id!r}) has references {str(refs)[:60]!r}: a tuple of texts"
    elif not any(r.strip() for r in refs):
        yield f"{where} ({sample.id!r}) has no non-blank reference; every sample needs one"


def split_problems(splits: Any, required: tuple[str, ...] = SPLITS) -> list[str]:
    """Every problem of a loader's result (empty when it is usable)."""
    if not isinstance(splits, Mapping):
        return [f"the loader returned a {type(splits).__name__}; it returns a dict of splits "
                f"({', '.join(required)}), each a list of Samples"]
    problems = [f"no {name!r} split (the loader returns {', '.join(map(repr, required))})"
                for name in required if name not in splits]
    for name, samples in splits.items():
        if not isinstance(samples, (list, tuple)):
            problems.append(f"split {name!r} is a {type(samples).__name__}, not a list of Samples")
            continue
        if not samples and name in required:
            problems.append(f"split {name!r} holds no samples")
        for i, sample in enumerate(samples):
            problems.extend(_sample_problems(sample, f"{name} sample {i + 1}"))
        problems.extend(duplicate_id_problems(name, samples))
    return problems


def duplicate_id_problems(name: str, samples: Any) -> list[str]:
    """Samples of one split sharing an id (predictions are kept by id, so one would replace the other)."""
    problems, seen = [], {}
    for i, sample in enumerate(samples):
        sample_id = getattr(sample, "id", None)
        if not isinstance(sample_id, str):
            continue
        if sample_id in seen:
            problems.append(f"{name} samples {seen[sample_id]} and {i + 1} share the id {sample_id!r}; ids are "
                            "unique within a split (predictions are kept by id)")
        seen.setdefault(sample_id, i + 1)
    return problems


def problems_text(problems: list[str]) -> str:
    """The count and the first few problems, on one line."""
    shown = "; ".join(problems[:MAX_SHOWN])
    more = f" (first {MAX_SHOWN} shown)" if len(problems) > MAX_SHOWN else ""
    return f"{len(problems)} problem{'s' if len(problems) != 1 else ''}{more}: {shown}"
