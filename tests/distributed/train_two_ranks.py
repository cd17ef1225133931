"""Started by torchrun (2 processes) from test_two_processes.py: a PPO run as `torchrun -m grue run`
would do it, recording on every rank which episodes it collected and a checksum of its weights after
each update. Writes the gathered records from the main process."""
import json
import sys

import torch

torch.set_num_threads(1)


def main(spec_path: str) -> None:
    from _rank_run import run_and_gather
    from grue.train.rl import trainer as trainer_module

    spec = json.loads(open(spec_path).read())
    records: list[dict] = []
    real_step, real_samples = trainer_module.RLTrainer.step, trainer_module.RLTrainer._my_samples

    def my_samples(self, episodes, **options):
        samples = real_samples(self, episodes, **options)
        records.append({"iteration": self.iteration + 1, "ids": [s.id for s in samples]})
        return samples

    def step(self):
        stats = real_step(self)
        checksum = sum(float(p.double().sum()) for p in [*self.policy.model.parameters(), *self.value.parameters()])
        records[-1].update(checksum=checksum, kl_coef=self.kl_ctl.value, reward_mean=stats["reward_mean"])
        return stats

    trainer_module.RLTrainer._my_samples, trainer_module.RLTrainer.step = my_samples, step
    run_and_gather(spec, "records", records)


if __name__ == "__main__":
    main(sys.argv[1])
