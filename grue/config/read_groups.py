"""Which config groups a run reads: the ones every run reads, and its algorithm's own.

The schema holds every algorithm's groups (`ppo`, `grpo`, `dpo`, ...), so a config printed in full lists a
DPO group for a GRPO run, and `algo=ppo grpo.group_size=8` looks set while nothing reads it. A run's groups
are the ones its hash covers (grue.train.registry.Algorithm.hashed_groups): a setting anywhere else cannot
change what it does. So a setting of another algorithm's group is refused by `grue config` and `grue plan`,
said in a note by `grue run` (whose command line is often shared by a loop over algorithms), dropped where
one command line feeds several runs (a sweep's cells, a warm start's first run, the demo), and left out of
what `grue config` prints and a run records (config.yaml, results.json), unless asked for.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping


def algorithm_groups() -> frozenset[str]:
    """The groups that some algorithm reads and others do not (every registered algorithm's, plug-ins too)."""
    from grue.train.registry import COMMON_GROUPS, algorithm_names, get_algorithm

    groups = set()
    for name in algorithm_names():
        algo = get_algorithm(name)
        groups.update(algo.reads, algo.config_groups)
    return frozenset(groups - set(COMMON_GROUPS))


def read_groups(algo: str) -> frozenset[str]:
    """The algorithm groups a run of `algo` reads."""
    from grue.train.registry import get_algorithm

    entry = get_algorithm(algo)
    return frozenset(entry.hashed_groups) | frozenset(entry.config_groups) | frozenset(entry.recipe_reads)


def idle_recipe_problem(keys: Iterable[str], algo: str, values: Mapping[str, Any]) -> str | None:
    """Why a setting of a group only a recipe of `algo` reads changes nothing in this run (the recipe is off
    for these resolved values, e.g. rollout.top_k with a hand-made dpo.comparisons file), else None."""
    from grue.train.registry import get_algorithm, load_attribute

    recipes = get_algorithm(algo).recipe_reads
    for key in keys:
        group = key.lstrip("+").split(".", 1)[0]
        off = load_attribute(recipes[group])(values) if group in recipes else None
        if off:
            return (f"{key}: algo={algo} reads the {group!r} group only to make its inputs, and {off}, "
                    "so this setting would change nothing: drop it")
    return None


def unread_group(key: str, algo: str) -> str | None:
    """The group of `key` when it is another algorithm's (so a run of `algo` never reads it), else None."""
    group = key.lstrip("+").split(".", 1)[0]
    return group if group in algorithm_groups() and group not in read_groups(algo) else None


def unread_problem(key: str, algo: str) -> str | None:
    """Why a command-line setting of `key` means nothing to a run of `algo`, with the ways out; None if read."""
    from grue.train.registry import algorithm_names

    group = unread_group(key, algo)
    if group is None:
        return None
    own = sorted(read_groups(algo) & algorithm_groups())
    readers = [name for name in algorithm_names() if group in read_groups(name)]
    shown = ", ".join(readers[:6]) + (", ..." if len(readers) > 6 else "")
    return (f"{key}: algo={algo} does not read the {group!r} group ({'it reads ' + ', '.join(own) if own else 'it reads no algorithm group'}), "
            f"so this setting would change nothing; drop it, or choose an algorithm that reads it ({shown})")


def unread_settings_note(args: Iterable[str], algo: str) -> str | None:
    """One line naming the settings a run of `algo` does not read, for a command that runs it anyway."""
    keys = [arg.split("=", 1)[0].strip() for arg in args if "=" in arg]
    unread = [key for key in keys if unread_group(key, algo) is not None]
    if not unread:
        return None
    return (f"algo={algo} does not read {', '.join(unread)} (groups it reads: "
            f"{', '.join(sorted(read_groups(algo) & algorithm_groups())) or 'none of the algorithm groups'}); "
            "these settings change nothing in this run")


def without_unread(args: Iterable[str], algo: str) -> list[str]:
    """A command line with the settings a run of `algo` would not read left out (a sweep's cell, a warm start)."""
    return [arg for arg in args if "=" not in arg or unread_group(arg.split("=", 1)[0].strip(), algo) is None]


def args_as_algorithm(args: Iterable[str], algo: str) -> list[str]:
    """The command line of a run derived from `args` with algorithm `algo` (the supervised run a warm start or a
    named teacher comes from): the same settings, less those of groups `algo` does not read (a PPO setting
    means nothing to the supervised run), so it is the very run `grue run ... algo=ALGO` would make."""
    return without_unread([a for a in args if not a.startswith("algo=")], algo) + [f"algo={algo}"]


def shown_config(values: Mapping[str, Any], algo: str, every_group: bool = False) -> dict[str, Any]:
    """The resolved config as a run of `algo` reads it: other algorithms' groups left out (all of them
    with `every_group`, e.g. `grue config --all-groups`)."""
    if every_group:
        return dict(values)
    hidden = algorithm_groups() - read_groups(algo)
    return {key: value for key, value in values.items() if key not in hidden}
