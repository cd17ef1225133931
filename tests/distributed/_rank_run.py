"""Shared by the torchrun scripts of this folder: run `grue run <spec args>` in this rank, then gather
what the rank recorded during the run and write every rank's records from the main process."""
import json
from typing import Any


def run_and_gather(spec: dict, key: str, records: list[Any]) -> None:
    from grue.config import load_config
    from grue.run.runner import Run

    run = Run(load_config(spec["args"]), spec["args"])
    run.execute()
    gathered = run.accelerator.gather_for_metrics([{"rank": run.accelerator.process_index, key: records}],
                                                  use_gather_object=True)
    if run.main:
        with open(spec["out"], "w") as handle:
            json.dump(list(gathered), handle)
    run.accelerator.wait_for_everyone()
