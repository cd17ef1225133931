"""Peak memory of one DPO step at several `dpo.micro_batch_size`, beside `grue plan`'s estimate.

    .venv/bin/python scripts/bench_dpo_memory.py [--task cnn_dailymail] [--micro 2,4] [--threads 1]

The mini profile's DPO (SmolLM2-135M, 16 answers a step, its comparisons made by the task's reward,
`dpo.comparisons=auto`). Each micro-batch size runs in a fresh process, so its peak RSS is its own: the
policy, its frozen reference and the training answers' reference scoring (at no_grad), then one optimizer
step. The comparisons file is made first if this machine has not made it yet (minutes: k samples of 160
queries). The first training step is the peak: RMSprop's moment is allocated there, and every step after it
has the same shapes. The machine is shared: the peaks are what this process held, whatever ran beside it.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_memory import in_fresh_process  # noqa: E402  (scripts/ is not a package)


def dpo_args(task: str, micro: int) -> list[str]:
    return [f"task={task}", "profile=mini", "algo=dpo", "seed=0", f"dpo.micro_batch_size={micro}", "dpo.max_steps=1"]


def one(task: str, micro: int, threads: int) -> dict:
    import torch

    from grue.config import load_config
    from grue.policy.load import frozen_copy, load_policy
    from grue.runtime.accelerator import make_accelerator
    from grue.train.offline.auto_comparisons import ensure_comparisons
    from grue.train.offline.dpo import DPOTrainer
    from tasks import get_task

    torch.set_num_threads(threads)
    cfg = load_config(dpo_args(task, micro))
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    say = lambda message: print(f"[micro {micro}] {message}", file=sys.stderr, flush=True)  # noqa: E731
    ensure_comparisons(cfg, policy, get_task(task).loader(cfg)["train"], say)
    accelerator = make_accelerator("cpu", Path(tempfile.mkdtemp()), [])
    trainer = DPOTrainer(cfg, policy, frozen_copy(policy.model), accelerator)
    trainer.say = say
    trainer.prepare()
    prompts = policy.encode([p.prompt for p in trainer.train[:64]])  # the estimate's prompt length
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    stats = trainer.train_step()
    return {"micro": micro, "step_s": time.perf_counter() - start, "loss": stats["loss"],
            "peak_before_step_mib": before, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "prompt_tokens": max(int(prompts.attention_mask.sum(-1).max()), 1)}


def estimate_mib(task: str, micro: int, prompt_tokens: int) -> float:
    from grue.commands.plan import MIB, estimate
    from grue.config import load_config

    return estimate(load_config(dpo_args(task, micro)), prompt_tokens=prompt_tokens).peak / MIB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="cnn_dailymail")
    parser.add_argument("--micro", default="2,4", help="comma-separated dpo.micro_batch_size values")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.task, args.one, args.threads)))
        return
    results = []
    for micro in (int(m) for m in args.micro.split(",")):
        cmd = [sys.executable, __file__, "--task", args.task, "--one", str(micro), "--threads", str(args.threads)]
        results.append(in_fresh_process(cmd, args.threads, f"micro-batch {micro}"))
    print(f"{args.task} mini DPO, one step of 16 answers; threads {args.threads}")
    print("| dpo.micro_batch_size | step s | peak RSS before the step MiB | peak RSS MiB | estimate MiB | "
          "estimate / measured |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in results:
        est = estimate_mib(args.task, r["micro"], r["prompt_tokens"])
        print(f"| {r['micro']} | {r['step_s']:.0f} | {r['peak_before_step_mib']:,.0f} | {r['peak_mib']:,.0f} | "
              f"{est:,.0f} | {est / r['peak_mib']:.2f} |")


if __name__ == "__main__":
    main()
