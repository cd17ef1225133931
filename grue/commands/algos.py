"""`grue algos`: the registered algorithms, what each trains and reads, and where it comes from."""
from __future__ import annotations

from rich.table import Table

from grue.run.display import console


def print_algorithms() -> None:
    from grue.train.registry import COMMON_GROUPS, algorithm_names, get_algorithm

    table = Table(title="Algorithms (grue/train/registry.py; plugins via GRUE_PLUGINS)", show_lines=False)
    for col in ("algo", "label", "trains", "reads (beyond the common groups)", "warm start", "trainer", "from"):
        table.add_column(col)
    for name in algorithm_names():
        algo = get_algorithm(name)
        reads = ", ".join(g for g in algo.reads if g not in COMMON_GROUPS) or "—"
        origin = "grue" if (algo.trainer or "grue.").startswith("grue.") else "plugin"
        table.add_row(name, algo.label, algo.trains + (" (reward)" if algo.optimises_reward else ""), reads,
                      algo.warm_start or "—", algo.trainer or "—", origin)
    console.print(table)
    console.print(f"Every run's hash also covers the common groups: {', '.join(COMMON_GROUPS)}.", soft_wrap=True)
