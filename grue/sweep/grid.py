"""Expand `key=a,b,c` arguments into the cells of a sweep, each one `grue run` keyed by its config hash.

    grue sweep task=imdb,commongen algo=ppo,nlpo seed=0,1,2 reward=meteor,rouge1

Any key may hold a comma list; `task=all` names every task and `algo=all` every method in its own form
with the paper's six (`every_method`; `init=` and `mask=` add the composed forms). A study whose
arms set different keys (zero-shot beside PPO on several rewards) is a union of grids: the common
arguments, each combined with one `--grid` of its own (grue.sweep.grid.expand_union). Commas inside
brackets (`eval.metrics=[meteor,rouge1]`) are a list value, not a sweep. A reward only matters to the
RL algorithms, so a Zero-shot or Supervised cell drops it and the cells that only differed by it
collapse into one (the same run would otherwise be trained twice and counted twice).
"""
from __future__ import annotations

import itertools
import shlex
from dataclasses import dataclass
from typing import Any, Sequence

from grue.errors import GrueUserError
from grue.config import config_hash, load_config
from grue.config.load import parse_overrides
from grue.config.read_groups import unread_group
from grue.train.registry import algorithm_names, find_algorithm, get_algorithm, optimises_reward
from grue.train.variants import VARIANT_KEYS, taken_variants

_REWARD_KEYS = ("reward", "reward.name")
# Where a sweep writes must be one place: the sweep's bookkeeping lives under it.
_NOT_SWEPT = ("output_dir",)


def _unread(key: str, pairs: Sequence[tuple[str, str]], algo: str | None) -> bool:
    """A key this cell would not read, dropped so cells that differ only by it are one run: the reward of
    an algorithm that optimises none, a group of another algorithm's (`grpo.group_size` in a PPO cell), the
    critic's settings in a cell without `reward.dense=critic`."""
    if key in _REWARD_KEYS and algo is not None and not optimises_reward(algo):
        return True
    if algo is not None and unread_group(key, algo) is not None:  # another algorithm's group (grpo.* for ppo)
        return True
    if key in VARIANT_KEYS and algo is not None:  # `algo=all init=none,supervised`: a method without warm starts
        entry = find_algorithm(algo)              # has one form, not an error
        if entry is not None and key not in taken_variants(entry):
            return True
    dense = next((v for k, v in pairs if k == "reward.dense"), None)
    return key.startswith("critic.") and dense is not None and dense in ("null", "None", "none", "")


class SweepError(GrueUserError, ValueError):
    """A sweep argument that cannot be expanded (the CLI prints it and exits with code 2)."""


@dataclass(frozen=True)
class Cell:
    """One run of the sweep: its `grue run` arguments, resolved config and config hash."""

    args: tuple[str, ...]
    cfg: Any
    hash: str

    @property
    def key(self) -> str:
        return self.hash[:12]

    @property
    def label(self) -> str:
        reward = f" reward={self.cfg.reward.name}" if optimises_reward(self.cfg.algo) else ""
        if reward and self.cfg.reward.name == "learned":  # the cells of a label-budget study differ here
            reward += f" ({self.cfg.reward.schedule}, {self.cfg.reward.labels} labels)"
        return f"{self.cfg.task} {self.cfg.algo} seed={self.cfg.seed}{reward} ({self.cfg.profile})"


def every_method() -> tuple[str, ...]:
    """What `algo=all` names: every method once, in its own form (no warm start, no action mask), and the
    paper's six, whose board rows include Supervised+PPO, NLPO and Supervised+NLPO. The other composed forms
    (Supervised+GRPO, masked RLOO, ...) are axes of their own: `algo=all init=none,supervised mask=none,nlpo`
    adds every form a method takes (grue/train/variants.py), dropped where a method takes no such variant."""
    names = []
    for name in algorithm_names():
        entry = get_algorithm(name)
        if entry.paper or (entry.warm_start is None and entry.mask is None):
            names.append(name)
    return tuple(names)


def split_values(value: str) -> list[str]:
    """`a,b,c` -> [a, b, c]; commas inside [] or {} belong to one value."""
    out, depth, current = [], 0, ""
    for char in value:
        depth += char in "[{"
        depth -= char in "]}"
        if char == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    out.append(current)
    return [v.strip() for v in out if v.strip()]


def _choices(key: str, value: str) -> list[str]:
    from tasks import task_names

    values = split_values(value)
    if key == "task" and values == ["all"]:
        return list(task_names())
    if key == "algo" and values == ["all"]:
        return list(every_method())
    if len(values) > 1 and key in _NOT_SWEPT:
        raise SweepError(f"{key} cannot be swept: a sweep writes into one runs directory")
    if not values:
        raise SweepError(f"{key}= has no value")
    return values


def axes(args: Sequence[str]) -> list[tuple[str, list[str]]]:
    """(key as written, values) per argument, in order; keys are checked against the schema first."""
    out = []
    for arg in args:
        parse_overrides([arg])  # unknown keys and non key=value arguments are refused by the config's own check
        key, value = arg.split("=", 1)
        out.append((key.strip(), _choices(key.strip().lstrip("+"), value)))
    return out


def expand(args: Sequence[str]) -> list[Cell]:
    """Every combination, in argument order (the last key varies fastest), without duplicate configs."""
    grid = axes(args)
    cells: dict[str, Cell] = {}
    for combo in itertools.product(*(values for _, values in grid)):
        pairs = [(key, value) for (key, _), value in zip(grid, combo)]
        algo = next((v for k, v in pairs if k == "algo"), None)
        cell_args = [f"{k}={v}" for k, v in pairs if not _unread(k, pairs, algo)]
        try:
            cfg = load_config(cell_args)
        except ValueError as err:
            raise SweepError(f"cell {' '.join(cell_args)}: {err}") from None
        digest = config_hash(cfg)
        cells.setdefault(digest, Cell(tuple(cell_args), cfg, digest))
    return list(cells.values())


def expand_union(common: Sequence[str], grids: Sequence[str]) -> list[Cell]:
    """The cells of every grid, each grid being `common` plus one space-separated argument string, in
    the order given, without duplicate configs. A key set both in `common` and in a grid is refused
    (which one should win is not obvious to a reader of the command)."""
    if not grids:
        return expand(common)
    common_keys = {key.lstrip("+") for key, _ in axes(common)}
    cells: dict[str, Cell] = {}
    for grid in grids:
        args = shlex.split(grid)
        if not args:
            raise SweepError("--grid '' has no arguments")
        twice = sorted(common_keys & {key.lstrip("+") for key, _ in axes(args)})
        if twice:
            raise SweepError(f"--grid '{grid}' sets {', '.join(twice)}, which the arguments for every grid set too; "
                             "set it in one place")
        for cell in expand([*common, *args]):
            cells.setdefault(cell.hash, cell)
    places = sorted({str(cell.cfg.output_dir) for cell in cells.values()})
    if len(places) > 1:  # one sweep keeps its books in one runs directory
        raise SweepError(f"the grids write to different output_dir values ({', '.join(places)}): a sweep writes "
                         "into one runs directory; set output_dir= once, for every grid")
    return list(cells.values())
