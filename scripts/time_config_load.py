"""Seconds to load a run's config (grue.config.load.load_config), and the two ways of starting one from the
schema: building the OmegaConf config from the dataclasses, and copying one built before
(grue.config.schema.schema_config). A sweep loads a config per cell and a board one per run.

    .venv/bin/python scripts/time_config_load.py [--repeats 20]

The machine is shared: read the ratios within one run, not the absolute seconds.
"""
from __future__ import annotations

import argparse
import copy
import time

from omegaconf import OmegaConf

from grue.config.load import load_config
from grue.config.schema import run_schema, schema_config

CASES = [["task=imdb", "algo=ppo", "profile=mini"], ["task=commongen", "algo=grpo", "profile=mini"],
         ["task=imdb", "algo=dpo", "profile=paper"], ["task=cnn_dailymail", "algo=supervised_nlpo"]]


def seconds_each(work, repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        work()
    return (time.perf_counter() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    repeats = parser.parse_args().repeats
    built = OmegaConf.structured(run_schema())
    build = seconds_each(lambda: OmegaConf.structured(run_schema()), repeats)
    copied = seconds_each(lambda: copy.deepcopy(built), repeats)
    schema_config()  # the first call builds the kept one
    load = seconds_each(lambda: [load_config(case) for case in CASES], repeats) / len(CASES)
    print(f"build the schema's config from the dataclasses: {build * 1e3:8.1f} ms")
    print(f"copy one built before (schema_config):          {copied * 1e3:8.1f} ms  ({build / copied:.0f}x faster)")
    print(f"load_config, mean of {len(CASES)} task/algo/profile cases:  {load * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
