"""`grue algos`: the registered methods, what each trains and reads, the variants it takes (a warm start, the
NLPO mask: grue/train/variants.py) with the names of its composed forms, and where it comes from.

A table on a wide terminal; one line per method otherwise (a pipe, a log, an 80-column window),
so a name is never wrapped or cut. Printed to stdout. Imports no model code (no torch).
"""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

WIDE = 170  # columns the table needs to show every cell whole


def _regulariser(algo: Any) -> str:
    """Its KL regulariser: the task's PPO preset's (the `kl` group, shared by every RL method), or the one
    its own preset sets (a paper-faithful setting: grue/train/algorithms.py), in regulariser_of's words."""
    if algo.trains != "rl":
        return "—"
    own = dict(algo.preset.get("kl", {}))
    if not own:
        return "the task's PPO kl"
    from dataclasses import asdict

    from grue.config.schema import KLConfig
    from grue.train.regulariser import describe_regulariser, regulariser_of

    label = describe_regulariser(regulariser_of({"algo": algo.name, "kl": {**asdict(KLConfig()), **own}}))
    return label if "adaptive" not in label else f"{label} (own)"


def _variants(method: Any, forms: list[Any]) -> str:
    """What a method takes and its composed forms by name: "init=supervised, mask=nlpo: supervised_grpo,
    grpo_mask (GRPO (masked)), ..."; a form's label is shown where the paper named it otherwise (NLPO)."""
    if not method.takes:
        return "—"
    from grue.train.variants import INITS, MASKS, variant_label

    takes = ", ".join(f"{key}={'|'.join({'init': INITS, 'mask': MASKS}[key])}" for key in method.takes)
    named = [f.name + (f" ({f.label})" if f.label != variant_label(method.label, f.warm_start, f.mask) else "")
             for f in forms]
    return f"{takes} -> {', '.join(named)}" if named else takes


def _rows() -> list[dict[str, str]]:
    from grue.train.registry import COMMON_GROUPS, algorithm_names, get_algorithm

    entries = [get_algorithm(name) for name in algorithm_names()]
    rows = []
    for algo in entries:
        if algo.method is not None:  # a composed form: listed with its method
            continue
        forms = [form for form in entries if form.method == algo.name]
        rows.append({"algo": algo.name, "label": algo.label,
                     "trains": algo.trains + (" (reward)" if algo.optimises_reward else ""),
                     "reads": ", ".join(g for g in algo.hashed_groups if g not in COMMON_GROUPS) or "—",
                     "KL": _regulariser(algo),
                     "variants": _variants(algo, forms), "trainer": algo.trainer or "—",
                     "from": "grue" if (algo.trainer or "grue.").startswith("grue.") else "plugin"})
    return rows


def print_algorithms(console: Console | None = None) -> None:
    from grue.train.registry import COMMON_GROUPS

    console = console or Console()  # stdout: a listing to read, pipe or grep (as grue tasks)
    rows = _rows()
    if console.is_terminal and console.width >= WIDE:
        table = Table(title="Algorithms (grue/train/registry.py; plugins via GRUE_PLUGINS or grue.plugins entry points)")
        for col in ("algo", "label", "trains", "reads (beyond the common groups)", "KL", "variants -> forms", "trainer",
                    "from"):
            table.add_column(col)
        for row in rows:
            table.add_row(*row.values())
        console.print(table)
    else:
        for row in rows:
            console.out(f"{row['algo']} ({row['label']}, {row['from']}): trains {row['trains']}; reads {row['reads']}; "
                        f"KL {row['KL']}; variants {row['variants']}; trainer {row['trainer']}", highlight=False)
    console.print(f"Every run's hash also covers the common groups: {', '.join(COMMON_GROUPS)}.", soft_wrap=True)
    console.print("Variants: `algo=grpo init=supervised mask=nlpo` is the form `supervised_grpo_mask`, the same run "
                  "(one hash); a warm start also reads the supervised group, the mask the nlpo group.", soft_wrap=True)
    console.print("KL: where each RL method's KL term sits, its estimator and coefficient rule; every RL method reads "
                  "the kl group, so on the board's presets all run under the task's PPO regulariser "
                  "(`grue config task=T algo=A` shows it).", soft_wrap=True)


def regulariser_line(cfg: Any) -> str:
    """`grue config`'s comment line naming the run's KL regulariser (grue/train/regulariser.py)."""
    from omegaconf import OmegaConf

    from grue.train.regulariser import describe_regulariser, regulariser_of

    return f"# regulariser: {describe_regulariser(regulariser_of(OmegaConf.to_container(cfg, resolve=True)))}"
