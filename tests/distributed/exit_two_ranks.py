"""Started by torchrun (2 processes) from test_exit.py: make grue's accelerator, do one collective,
and record at the very end of the interpreter's exit handlers whether the process group still exists."""
import atexit
import json
import sys
from pathlib import Path

import torch


def main(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    out = Path(spec["out"])

    def record() -> None:  # registered first, so it runs after every handler registered later
        rank = int(__import__("os").environ["RANK"])
        (out / f"rank{rank}.json").write_text(json.dumps({"alive": torch.distributed.is_initialized()}))

    atexit.register(record)
    from grue.runtime.accelerator import make_accelerator

    accelerator = make_accelerator("cpu", out)
    assert accelerator.num_processes == 2 and torch.distributed.is_initialized()
    total = torch.ones(1)
    torch.distributed.all_reduce(total)
    assert total.item() == 2


if __name__ == "__main__":
    main(sys.argv[1])
