"""Started by torchrun (2 processes) from test_lora_two_processes.py: a Supervised+PPO run with LoRA as
`torchrun -m grue run` would do it, recording on every rank a digest of the policy's adapter tensors and
of its frozen base before supervised training and after every supervised epoch and PPO iteration. Writes
the gathered records from the main process."""
import hashlib
import json
import sys

import torch

torch.set_num_threads(1)


def digest(tensors: dict) -> str:
    """Exact identity of a set of tensors (names, shapes and every byte)."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        h.update(name.encode())
        h.update(tensors[name].detach().contiguous().cpu().numpy().tobytes())
    return h.hexdigest()


def main(spec_path: str) -> None:
    from _rank_run import run_and_gather
    from grue.policy import lora
    from grue.train.rl import trainer as rl
    from grue.train.supervised import trainer as supervised

    spec = json.loads(open(spec_path).read())
    records: list[dict] = []

    def record(phase: str, step: int, model) -> None:
        records.append({"phase": phase, "step": step, "adapters": digest(lora.adapter_state(model)),
                        "base": digest(lora.base_state_dict(model))})

    real_epoch, real_step = supervised.SupervisedTrainer.train_epoch, rl.RLTrainer.step

    def train_epoch(self, on_step=None):
        if self.epoch == 0:
            record("supervised", 0, self.policy.model)
        loss = real_epoch(self, on_step)
        record("supervised", self.epoch, self.policy.model)
        return loss

    def step(self):
        stats = real_step(self)
        record("rl", self.iteration, self.policy.model)
        return stats

    supervised.SupervisedTrainer.train_epoch, rl.RLTrainer.step = train_epoch, step
    run_and_gather(spec, "records", records)


if __name__ == "__main__":
    main(sys.argv[1])
