"""A study on disk: what raters judge (`items.jsonl`) and how (`study.json`).

Which system (run) wrote each text is kept in these files for the analysis and is never sent to a
rater: the app shows texts only, under opaque item ids assigned after shuffling.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from grue.errors import GrueUserError
from grue.storage.atomic import atomic_write_json, atomic_write_jsonl

Kind = Literal["ratings", "comparisons"]
KINDS: tuple[str, ...] = ("ratings", "comparisons")
STUDY_FILE = "study.json"
ITEMS_FILE = "items.jsonl"
LINKS_FILE = "links.txt"
DB_FILE = "answers.sqlite"


class StudyError(GrueUserError, ValueError):
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

    @property
    def files(self) -> list[Path]:
        """The study's own files and its folder: what no command may write over."""
        return [self.root, *(self.root / name for name in (STUDY_FILE, ITEMS_FILE, LINKS_FILE, DB_FILE))]

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


_STUDY_FIELDS = {"kind": str, "task": str, "protocol": dict, "seed": int, "raters_per_item": int, "systems": dict}
SQLITE_HEADER = b"SQLite format 3\x00"


def _study_doc(root: Path) -> dict[str, Any]:
    """study.json, checked for the shape this module reads (a hand-edited file must fail here, in one
    line, rather than as a KeyError in whichever command reads the missing key first)."""
    from grue.storage.inputs import InputError, read_text

    path = root / STUDY_FILE
    try:
        doc = json.loads(read_text(path, "study file"))
    except InputError as err:
        raise StudyError(str(err)) from None
    except json.JSONDecodeError as err:
        raise StudyError(f"{path}: not JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(doc, dict):
        raise StudyError(f"{path}: a JSON {type(doc).__name__}, not an object")
    for key, kind in _STUDY_FIELDS.items():
        if not isinstance(doc.get(key), kind) or isinstance(doc.get(key), bool):
            raise StudyError(f"{path}: '{key}' must be a {kind.__name__}, got {doc.get(key)!r:.60}")
    if doc["kind"] not in KINDS:
        raise StudyError(f"{path}: kind must be one of {', '.join(KINDS)}")
    if doc["raters_per_item"] < 1:
        raise StudyError(f"{path}: raters_per_item must be at least 1")
    needed = ("axes", "scale", "show_prompt", "instructions") if doc["kind"] == "ratings" else ("show_prompt", "instructions")
    missing = [k for k in needed if k not in doc["protocol"]]
    if missing:
        raise StudyError(f"{path}: the protocol lacks {', '.join(missing)}")
    if any(not isinstance(info, dict) or "algo" not in info for info in doc["systems"].values()):
        raise StudyError(f"{path}: every system needs an 'algo'")
    return doc


def _candidates_problem(row: dict[str, Any]) -> str | None:
    candidates = row.get("candidates")
    if not isinstance(candidates, list) or not candidates or not all(
            isinstance(c, dict) and set(c) == {"system", "text"} and all(isinstance(v, str) for v in c.values())
            for c in candidates):
        return "'candidates' must be a list of {system, text} objects"
    return None


def _items(root: Path) -> dict[str, Item]:
    from grue.storage.inputs import Field, InputError, read_records

    try:
        rows = read_records(root / ITEMS_FILE, (Field("id"), Field("sample_id"), Field("prompt")), "items file",
                            check=_candidates_problem)
    except InputError as err:
        raise StudyError(str(err)) from None
    return {row["id"]: Item.from_dict(row) for _, row in rows}


def check_database(path: Path) -> None:
    """The answers database, when it exists, is a whole SQLite file: not a folder, not something else,
    not truncated or damaged (SQLite's quick_check, a read of every page: milliseconds at a study's size)."""
    import sqlite3

    if path.is_dir():
        raise StudyError(f"{path} is a directory; the study's answers database must be a file")
    if not path.exists():
        return
    with open(path, "rb") as handle:
        head = handle.read(len(SQLITE_HEADER))
    if head and head != SQLITE_HEADER:
        raise StudyError(f"{path} is not an SQLite database (corrupt or replaced); restore it from a backup")
    if not head:
        return  # an empty file: SQLite creates the tables in it
    try:  # read-only: a read-write connection would checkpoint the journal into the file when it closes
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            verdict = connection.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            connection.close()
    except sqlite3.OperationalError:
        return  # cannot open it read-only here (e.g. its journal's index is missing): the engine will say
    except sqlite3.DatabaseError as err:  # not a database, or malformed
        verdict = str(err)
    if verdict != "ok":
        raise StudyError(f"{path} is damaged ({verdict}); restore it from a backup")


def load_study(root: Path | str) -> Study:
    """Read a study directory written by `make-study`; a missing or broken one is a StudyError."""
    root = Path(root)
    if not root.is_dir() or not (root / STUDY_FILE).exists():
        missing = STUDY_FILE if root.is_dir() else "the directory"
        raise StudyError(f"{root} is not a study directory (missing {missing}); "
                         "create one with `grue human make-study`")
    doc = _study_doc(root)
    items = _items(root)
    systems = set(doc["systems"]) | {"gold"}
    stray = next((i for i in items.values() if any(c.system not in systems for c in i.candidates)), None)
    if stray is not None:
        raise StudyError(f"{root / ITEMS_FILE}: item {stray.id} names a system that {STUDY_FILE} does not list")
    check_database(root / DB_FILE)
    return Study(root, doc["kind"], doc["task"], doc["protocol"], doc["seed"], doc["raters_per_item"],
                 doc["systems"], items)
