"""Started by torchrun (2 processes) from test_sharded.py: `grue run` on this rank, recording after each
update a checksum of the whole (gathered) weights, the episodes collected and how many parameter
elements this rank stores. With `interrupt_after`, the run is interrupted once after that iteration's
checkpoint and then started again in the same processes, as a user would rerun the command."""
import json
import sys

import torch

torch.set_num_threads(1)


def full(param):
    from grue.runtime.sharding import is_sharded

    return param.full_tensor() if is_sharded(param) else param  # a collective: both ranks call it alike


def main(spec_path: str) -> None:
    from _rank_run import run_and_gather
    from grue.train.rl import trainer as trainer_module
    from grue.runtime.sharding import is_sharded

    spec = json.loads(open(spec_path).read())
    records: list[dict] = []
    real_step = trainer_module.RLTrainer.step
    interrupt = {"after": spec.get("interrupt_after")}

    def step(self):
        if interrupt["after"] is not None and self.iteration == interrupt["after"]:
            interrupt["after"] = None
            raise KeyboardInterrupt  # after iteration `after` was checkpointed, before the next one
        stats = real_step(self)
        params = [*self.policy.model.parameters(), *self.value.parameters()]
        records.append({"iteration": self.iteration, "reward_mean": stats["reward_mean"], "kl": stats["kl"],
                        "checksum": sum(float(full(p).double().sum()) for p in params),
                        "local": sum((p.to_local() if is_sharded(p) else p).numel() for p in params),
                        "total": sum(full(p).numel() for p in params),
                        "sharded": all(is_sharded(p) for p in params)})
        return stats

    trainer_module.RLTrainer.step = step
    if spec.get("interrupt_after") is not None:
        from grue.config import load_config
        from grue.run.runner import Run

        from grue.train.checkpoint import latest_step

        run = Run(load_config(spec["args"]), spec["args"])
        try:
            run.execute()
        except KeyboardInterrupt:
            newest = latest_step(run.dir.checkpoints)
            records.append({"interrupted": newest.name,
                            "files": sorted(str(f.relative_to(newest)) for f in newest.rglob("*") if f.is_file())})
    run_and_gather(spec, "records", records)


if __name__ == "__main__":
    main(sys.argv[1])
