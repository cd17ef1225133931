"""Started by torchrun (2 processes) from test_two_processes.py: a PPO run as `torchrun -m grue run`
would do it, recording on every rank which episodes it collected and a checksum of its weights after
each update. Writes the gathered records from the main process."""
import json
import sys

import torch

torch.set_num_threads(1)


def main(spec_path: str) -> None:
    from grue.config import load_config
    from grue.rl import trainer as trainer_module
    from grue.runner import Run

    spec = json.loads(open(spec_path).read())
    records: list[dict] = []
    real_step, real_samples = trainer_module.RLTrainer.step, trainer_module.RLTrainer._my_samples

    def my_samples(self):
        samples = real_samples(self)
        records.append({"iteration": self.iteration + 1, "ids": [s.id for s in samples]})
        return samples

    def step(self):
        stats = real_step(self)
        checksum = sum(float(p.double().sum()) for p in [*self.policy.model.parameters(), *self.value.parameters()])
        records[-1].update(checksum=checksum, kl_coef=self.kl_ctl.value, reward_mean=stats["reward_mean"])
        return stats

    trainer_module.RLTrainer._my_samples, trainer_module.RLTrainer.step = my_samples, step
    run = Run(load_config(spec["args"]), spec["args"])
    run.execute()
    gathered = run.accelerator.gather_for_metrics([{"rank": run.accelerator.process_index, "records": records}],
                                                  use_gather_object=True)
    if run.main:
        with open(spec["out"], "w") as handle:
            json.dump(list(gathered), handle)
    run.accelerator.wait_for_everyone()


if __name__ == "__main__":
    main(sys.argv[1])
