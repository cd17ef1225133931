"""The split loader of a declarative task: its own data files, or a hub dataset in the hub's layout.

File mode (the task file names no `data.source`): each split is a JSONL, CSV or parquet file, its path
relative to the task file. Hub mode (`data.source` is a hub id or a local directory in the hub's
layout, `data.config`/`data.revision` as for the built-in tasks): each split names the dataset's split.
A missing validation split is held out of train (`data.val_from_train`), by the split seed. Then the
splits are finished as every task's are (shuffled by the split seed, capped by data.max_*, the prompt
suffix added), so a user task reads its data exactly as a built-in one does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from grue.data.hub import dataset_root, finish_splits, held_out, read_rows
from grue.data.local_files import Located, read_records
from grue.data.sample import Sample
from grue.extend.errors import ExtensionError
from grue.storage.inputs import InputError, Problems
from grue.task_files.records import RecordFormat

SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class FileTaskData:
    task: str
    origin: Path                      # the task file, for messages
    folder: Path                      # relative data paths start here
    splits: Mapping[str, str]         # split -> file path (file mode) or the dataset's split name (hub mode)
    hub: bool
    record: RecordFormat
    val_from_train: int | None = None
    # The first records of each local split as Samples, kept when the files are checked as the task is read:
    # what a python: metric or reward is tried on at config time (grue/extend/early_check.py).
    preview: Mapping[str, tuple[Sample, ...]] = field(default_factory=dict, compare=False, repr=False)

    def path(self, split: str) -> Path:
        path = Path(self.splits[split]).expanduser()
        return path if path.is_absolute() else self.folder / path

    def _records(self, cfg: Any, split: str) -> tuple[list[Located], str]:
        if self.hub:  # the hub's rows have no lines of a file the user edits: they are counted as records
            rows = read_rows(dataset_root(cfg), self.splits[split], cfg.data.config, self.record.fields())
            return [Located(i, row, "record") for i, row in enumerate(rows, start=1)], \
                f"{cfg.data.source} split {self.splits[split]!r}"
        path = self.path(split)
        try:
            return read_records(path), str(path)
        except (InputError, OSError) as err:
            raise ExtensionError(f"task {self.task} ({self.origin}): {err}") from None

    def _samples(self, split: str, records: list[Located], where: str) -> list[Sample]:
        """The split's Samples; every bad record and every repeated id is named by its line (or row) and
        counted, and any makes the split an ExtensionError."""
        problems = Problems(where, unit=records[0].unit if records else "line")
        samples, first_seen = [], {}
        for position, record in enumerate(records):
            try:
                sample = self.record.sample(record.values, f"{split}-{position}")
            except ExtensionError as err:
                problems.add(record.number, str(err))
                continue
            if sample.id in first_seen:  # predictions are kept by id: one would silently replace the other
                problems.add(record.number, f"id {sample.id!r} is also the id on {problems.unit} "
                                            f"{first_seen[sample.id]}; ids are unique within a split")
            first_seen.setdefault(sample.id, record.number)
            samples.append(sample)
        problems.found.sort(key=lambda found: found[0])
        if problems:
            raise ExtensionError(f"task {self.task}: {problems.message()}")
        return samples

    def checked_samples(self, split: str, records: list[Located]) -> list[Sample]:
        """A local split's records as Samples, every record checked as a run will check it (a record lacking a
        field deep in the file is found when the task is read, not minutes into a run); an ExtensionError
        names the file and each bad line."""
        return self._samples(split, records, str(self.path(split)))

    def __call__(self, cfg: Any) -> dict[str, list[Sample]]:
        if not self.hub and cfg.data.source:
            raise ExtensionError(f"task {self.task} reads its own data files ({self.origin}: data.splits); "
                                 "data.source is for a task file that names a hub dataset. Unset data.source")
        out: dict[str, list[Sample]] = {}
        for split in SPLITS:
            if split not in self.splits:
                continue
            records, where = self._records(cfg, split)
            out[split] = self._samples(split, records, where)
            if not out[split]:
                raise ExtensionError(f"task {self.task}: the {split} split ({where}) holds no records")
        if "val" not in out:
            out["train"], out["val"] = held_out(out["train"], int(self.val_from_train or 0), cfg.data.split_seed)
        return finish_splits(cfg, out)
