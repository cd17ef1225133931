"""Print the config hash of every built-in (task, profile, algorithm) preset, plus a few common
overrides, as JSON: the record that tests/config/test_hash_stability.py holds the code to.

`python scripts/preset_hashes.py > tests/config/preset_hashes.json` re-records it; only do that
when a change is meant to re-hash existing runs (their directories would no longer be found).

`--all` adds every other registered algorithm's preset (the critic-free methods, their paper settings, DPO,
best-of-n; no variants): run it at two commits and compare to see which runs a change re-hashed
(docs/algorithms.md, "Hashes").
"""
from __future__ import annotations

import json
import sys

# A few overrides people use, so the record covers more than the presets' own values.
VARIANTS = ((), ("kl.target=null",), ("reward.dense=critic", "critic.backend=self"), ("seed=3",))


def main() -> None:
    from grue.config import config_hash, load_config
    from grue.train.registry import algorithm_names, get_algorithm
    from tasks import grue_task_names

    everything = "--all" in sys.argv[1:]
    paper_algos = [name for name in algorithm_names() if get_algorithm(name).paper]
    record = {}
    for task in grue_task_names():
        for profile in ("paper", "mini"):
            for algo in paper_algos:
                for extra in VARIANTS:
                    args = [f"task={task}", f"profile={profile}", f"algo={algo}", *extra]
                    try:
                        record[" ".join(args)] = config_hash(load_config(args))
                    except Exception as err:  # a variant a task refuses is recorded as refused
                        record[" ".join(args)] = f"refused: {type(err).__name__}"
    if everything:
        for task in grue_task_names():
            for profile in ("paper", "mini"):
                for algo in (name for name in algorithm_names() if not get_algorithm(name).paper):
                    args = [f"task={task}", f"profile={profile}", f"algo={algo}"]
                    try:
                        record[" ".join(args)] = config_hash(load_config(args))
                    except Exception as err:  # noqa: BLE001 - recorded, as above
                        record[" ".join(args)] = f"refused: {type(err).__name__}"
    json.dump(record, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
