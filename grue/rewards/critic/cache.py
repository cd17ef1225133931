"""Judgements kept in the run directory, keyed by (critic, template, text), so a resumed run never
asks the critic twice (a kill -9 included).

Each batch of new judgements is one JSONL file written atomically (temp file + rename), so a file is
either whole or absent; files are never rewritten, so concurrent processes of one run never clash
(each names its files by process id and a counter). Loading reads every file in the directory.
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Mapping, Optional

from grue.storage.atomic import atomic_write_jsonl
from grue.storage.run_layout import read_jsonl


def judgement_key(critic: str, template_digest: str, rendered_prompt: str) -> str:
    """The rendered prompt holds the text (and the extrinsic score, for templates that show it)."""
    return hashlib.sha256("\0".join((critic, template_digest, rendered_prompt)).encode()).hexdigest()


class JudgementCache:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.answers: dict[str, str] = {}
        self.files_written = 0
        for path in sorted(self.directory.glob("*.jsonl")):
            self.answers.update({row["key"]: row["answer"] for row in read_jsonl(path)
                                 if isinstance(row.get("key"), str) and isinstance(row.get("answer"), str)})

    def get(self, key: str) -> Optional[str]:
        return self.answers.get(key)

    def put_many(self, answers: Mapping[str, str]) -> None:
        if not answers:
            return
        self.answers.update(answers)
        self.files_written += 1
        name = f"{time.time_ns()}-{os.getpid()}-{self.files_written}.jsonl"
        atomic_write_jsonl(self.directory / name, ({"key": k, "answer": a} for k, a in answers.items()))


