"""Started by torchrun (2 processes) from test_two_processes.py: a supervised run as `torchrun -m grue
run` would do it, recording on every rank the training pairs each step's forward pass saw. Writes the
gathered records from the main process."""
import json
import sys

import torch

torch.set_num_threads(1)


def main(spec_path: str) -> None:
    from _rank_run import run_and_gather
    from grue.train.supervised import trainer as supervised

    spec = json.loads(open(spec_path).read())
    seen: list[list[str]] = []
    real_batch = supervised.supervised_batch

    def recording_batch(policy, pairs, max_length):
        seen.append([prompt + "\x00" + target for prompt, target in pairs])
        return real_batch(policy, pairs, max_length)

    supervised.supervised_batch = recording_batch
    run_and_gather(spec, "steps", seen)


if __name__ == "__main__":
    main(sys.argv[1])
