"""What differs between two board rows of one task: a referee's first question, answered from the runs.

A board row is one setting of one algorithm (setting.py): its seeds share a config apart from the seed. Two
rows are told apart by
- the facts a comparison rests on (run_facts.py), always shown: the critic (model.value_model, or none),
  the KL regulariser, samples per prompt, epochs per rollout, and the tokens spent (each row's mean of
  results.json `cost.train_generated_tokens`, B's as a ratio of A's, within 2 % or not: budget.py);
- every config key that differs in the groups either algorithm reads (the config hash's whitelist:
  grue/train/registry.py `reads`, grue/config/identity.py `semantic_config`): a key of a group only one of
  them reads shows "(not read)" on the other side. Keys that change where or how fast a run goes, not what
  it computes (output_dir, device, ...), and the seed are left out. A config recorded before a field was
  added lacks its key and ran at its default (grue/config/identity.py `added_field_defaults`), so it is read
  as that default; a key one side does not read and the other does not hold (a field since removed) is no
  difference.

Rows are named for `grue compare --rows` by their algorithm, with a short id of the row when the algorithm
has several rows on the task ("ppo@3f2a1c"); `row_catalogue` lists them with their setting labels.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from grue.board.numbers.budget import TOKEN_TOLERANCE, at_equal_tokens, tokens_ratio_text
from grue.board.numbers.collect import Run
from grue.board.numbers.run_facts import NOT_RECORDED, run_facts
from grue.board.numbers.setting import PER_RUN_KEYS, flatten
from grue.board.task_info import algo_label

NOT_READ = "(not read)"
UNSET = "(unset)"


@dataclass(frozen=True)
class BoardRow:
    """One row of a task's table and the runs (seeds) behind it."""

    key: tuple  # the aggregate's ROW_KEYS: task, algo, reward, init model, profile, setting, setting label
    runs: tuple[Run, ...]

    @property
    def task(self) -> str:
        return self.key[0]

    @property
    def algo(self) -> str:
        return self.key[1]

    @property
    def setting_label(self) -> str:
        return self.key[6]

    @property
    def short_id(self) -> str:
        """Six hex digits naming the row among its algorithm's rows (stable: a digest of its key)."""
        return hashlib.sha256(json.dumps(list(self.key)).encode()).hexdigest()[:6]

    @property
    def config(self) -> Mapping[str, Any] | None:
        config = self.runs[0].doc.get("config")
        return config if isinstance(config, Mapping) and config else None

    @property
    def tokens(self) -> float:
        """Mean training tokens over the row's seeds (NaN where none records them)."""
        spent = []
        for run in self.runs:
            cost = run.doc.get("cost") if isinstance(run.doc.get("cost"), Mapping) else {}
            value = cost.get("train_generated_tokens")
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                spent.append(float(value))
        return sum(spent) / len(spent) if spent else math.nan

    def describe(self) -> str:
        """How the row reads on the board: 'PPO (kl.target=0.1; reward sentiment; profile mini; 3 seeds)'."""
        parts = [self.setting_label] if self.setting_label else []
        parts += [f"reward {self.key[2] or '—'}", f"profile {self.key[4]}", f"{len(self.runs)} seed(s)"]
        return f"{algo_label(self.algo)} ({'; '.join(parts)})"


@dataclass(frozen=True)
class Difference:
    """One line of a comparison: what (a fact or a config key), A's value, B's, whether they differ."""

    what: str
    a: str
    b: str
    fact: bool
    differs: bool


def board_rows(runs: Iterable[Run]) -> dict[str, list[BoardRow]]:
    """Task -> its rows, in the order the runs were collected."""
    grouped: dict[tuple, list[Run]] = {}
    for run in runs:
        grouped.setdefault(run.key, []).append(run)
    out: dict[str, list[BoardRow]] = {}
    for key, members in grouped.items():
        out.setdefault(key[0], []).append(BoardRow(key, tuple(members)))
    return out


def row_names(rows: list[BoardRow]) -> dict[str, BoardRow]:
    """Name -> row for one task: the algorithm, or algorithm@id where it has several rows."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.algo] = counts.get(row.algo, 0) + 1
    return {(row.algo if counts[row.algo] == 1 else f"{row.algo}@{row.short_id}"): row for row in rows}


def row_catalogue(rows: list[BoardRow]) -> str:
    """The valid row names of a task on one line, each with its setting label where it has one."""
    return ", ".join(name + (f" ({row.setting_label})" if row.setting_label else "")
                     for name, row in sorted(row_names(rows).items()))


def _read_groups(config: Mapping[str, Any]) -> set[str]:
    from grue.config.identity import semantic_config

    return set(semantic_config(dict(config)))


def _flat(config: Mapping[str, Any]) -> dict[str, Any]:
    from grue.config.identity import NON_SEMANTIC_KEYS

    flat = flatten(config)
    # Non-semantic groups (tracking, ...) are no group an algorithm reads, so config_differences skips them.
    return {k: v for k, v in flat.items() if k not in PER_RUN_KEYS and k not in NON_SEMANTIC_KEYS}


def _shown(value: Any, present: bool) -> str:
    if not present:
        return UNSET
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def config_differences(a: BoardRow, b: BoardRow) -> list[Difference]:
    """The config keys that differ in the groups either row's algorithm reads (see the module docstring)."""
    if a.config is None or b.config is None:
        return []
    from grue.config.identity import added_field_defaults

    reads = {"a": _read_groups(a.config), "b": _read_groups(b.config)}
    added = added_field_defaults()
    flat = {side: {**{k: v for k, v in added.items() if k.split(".")[0] in reads[side]}, **_flat(row.config)}
            for side, row in (("a", a), ("b", b))}
    groups = reads["a"] | reads["b"]
    out = []
    for key in sorted((set(flat["a"]) | set(flat["b"]))):
        group = key.split(".")[0]
        if group not in groups:
            continue
        values = [_shown(flat[side].get(key), key in flat[side]) if group in reads[side] else NOT_READ
                  for side in ("a", "b")]
        if set(values) == {NOT_READ, UNSET}:  # held by neither side's reading of it: nothing to compare
            continue
        if values[0] != values[1]:
            out.append(Difference(key, values[0], values[1], fact=False, differs=True))
    return out


def _tokens_text(row: BoardRow, reference: BoardRow | None, reference_name: str = "A") -> str:
    if not math.isfinite(row.tokens):
        return NOT_RECORDED
    text = f"{row.tokens:.0f}"
    if reference is None:
        return text
    verdict = "within" if at_equal_tokens(row.tokens, reference.tokens) else "not within"
    return f"{text} ({tokens_ratio_text(row.tokens, reference.tokens, reference_name)}: {verdict} {TOKEN_TOLERANCE:.0%})"


def _tokens_differ(a: float, b: float) -> bool:
    """Recorded on one side only, or outside the tolerance; two unrecorded sides do not differ."""
    if math.isfinite(a) != math.isfinite(b):
        return True
    return math.isfinite(a) and not at_equal_tokens(b, a)


def differences(a: BoardRow, b: BoardRow, a_name: str = "A") -> list[Difference]:
    """Facts first (always shown), then the differing config keys; B's tokens read as a ratio of `a_name`'s."""
    facts_a, facts_b = run_facts(a.runs[0].doc), run_facts(b.runs[0].doc)
    lines = [Difference(name, facts_a[name] or "—", facts_b[name] or "—", fact=True,
                        differs=facts_a[name] != facts_b[name]) for name in facts_a]
    lines.append(Difference("train tokens", _tokens_text(a, None), _tokens_text(b, a, a_name), fact=True,
                            differs=_tokens_differ(a.tokens, b.tokens)))
    lines.append(Difference("seeds", str(len(a.runs)), str(len(b.runs)), fact=True, differs=False))
    return lines + config_differences(a, b)


def differences_text(lines: list[Difference]) -> str:
    """The differing lines on one line: 'critic separate vs none; grpo.group_size (not read) vs 4'."""
    changed = [line for line in lines if line.differs]
    return "; ".join(f"{line.what} {line.a} vs {line.b}" for line in changed) or "nothing but the seeds"
