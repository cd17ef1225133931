"""A study on disk: what raters judge (`items.jsonl`) and how (`study.json`).

Which system (run) wrote each text is kept in these files for the analysis and is never sent to a
rater: the app shows texts only, under opaque item ids assigned after shuffling.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from grue.storage.atomic import atomic_write_json, atomic_write_jsonl, read_jsonl

Kind = Literal["ratings", "comparisons"]
KINDS: tuple[str, ...] = ("ratings", "comparisons")
STUDY_FILE = "study.json"
ITEMS_FILE = "items.jsonl"
LINKS_FILE = "links.txt"
DB_FILE = "answers.sqlite"


class StudyError(ValueError):
    """A study directory that is missing, incomplete or inconsistent."""


@dataclass(frozen=True)
class Candidate:
    """One text to judge and the system that wrote it (`gold` for attention-check texts)."""

    system: str
    text: str


@dataclass(frozen=True)
class Item:
    """One thing a rater answers: a text to rate, or k candidates for one prompt to choose among.

    `gold` marks an attention check with its expected answer: `{"value": v}` (every axis rated v)
    for ratings, `{"choice": i}` (candidate i) for comparisons.
    """

    id: str
    sample_id: str
    prompt: str
    candidates: tuple[Candidate, ...]
    gold: dict[str, int] | None = None

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> "Item":
        return cls(row["id"], row["sample_id"], row["prompt"], tuple(Candidate(**c) for c in row["candidates"]),
                   row.get("gold"))


@dataclass
class Study:
    """A study's definition. `systems` maps an opaque system id to the run it came from."""

    root: Path
    kind: Kind
    task: str
    protocol: dict[str, Any]
    seed: int
    raters_per_item: int
    systems: dict[str, dict[str, Any]]
    items: dict[str, Item] = field(default_factory=dict)

    @property
    def axes(self) -> list[str]:
        return list(self.protocol["axes"]) if self.kind == "ratings" else []

    @property
    def scale(self) -> tuple[int, int]:
        low, high = self.protocol["scale"]
        return int(low), int(high)

    @property
    def db_path(self) -> Path:
        return self.root / DB_FILE

    def judged_items(self) -> list[Item]:
        """The items whose answers are data (attention checks excluded)."""
        return [item for item in self.items.values() if item.gold is None]

    def system_label(self, system: str) -> str:
        """The name analysis tables use for a system: its algorithm (and seed when one algorithm has several)."""
        info = self.systems[system]
        same_algo = [s for s in self.systems.values() if s["algo"] == info["algo"]]
        return info["algo"] if len(same_algo) == 1 else f"{info['algo']} (seed {info['seed']})"

    def save(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.root / STUDY_FILE, {
            "kind": self.kind, "task": self.task, "protocol": self.protocol, "seed": self.seed,
            "raters_per_item": self.raters_per_item, "systems": self.systems})
        atomic_write_jsonl(self.root / ITEMS_FILE, [asdict(item) for item in self.items.values()])


def load_study(root: Path | str) -> Study:
    """Read a study directory written by `make-study`; a missing or broken one is a StudyError."""
    root = Path(root)
    try:
        doc = json.loads((root / STUDY_FILE).read_text(encoding="utf-8"))
        rows = read_jsonl(root / ITEMS_FILE)
    except FileNotFoundError as err:
        raise StudyError(f"{root} is not a study directory (missing {Path(err.filename).name}); "
                         "create one with `grue human make-study`") from None
    except (OSError, json.JSONDecodeError) as err:
        raise StudyError(f"{root}: unreadable study files: {err}") from None
    if doc.get("kind") not in KINDS:
        raise StudyError(f"{root / STUDY_FILE}: kind must be one of {', '.join(KINDS)}")
    items = {row["id"]: Item.from_dict(row) for row in rows}
    return Study(root, doc["kind"], doc["task"], doc["protocol"], int(doc["seed"]), int(doc["raters_per_item"]),
                 doc["systems"], items)
