"""The IMDB mini PPO preset's whole `grue run`, three ways, one after another on the same machine and seed.

- `generate`: `rollout.decoder=generate generation.decoder=generate`, grue as it ran before its own decode
  loop (transformers' generate() for rollouts and evaluations);
- `grue`: the preset as it is (grue's decode loop, fp32);
- `bf16`: the preset with `model.mixed_precision=bf16` (autocast over fp32 master weights; fast on CPUs
  with bf16 units and on GPUs, slow where bf16 is emulated).

Prints, per variant, the run's wall seconds (results.json), its training seconds and their rollout /
update split (logs/train.jsonl), the rest (loading, the three evaluations), the ratio to `generate`, and
the validation/test sentiment and perplexity, so speed is read beside what the run learned. Each variant
is its own run directory under --output-dir; an existing finished run is reused, so delete the folder to
time again.

    .venv/bin/python scripts/whole_run_speed.py [--seed 0] [--threads 2] [--variants generate grue bf16]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from grue.config import load_config
from grue.run.runner import Run

VARIANTS = {"generate": ["rollout.decoder=generate", "generation.decoder=generate"], "grue": [],
            "bf16": ["model.mixed_precision=bf16"]}


def summary(run_dir: Path) -> dict[str, float]:
    results = json.loads((run_dir / "results.json").read_text())
    lines = [json.loads(line) for line in (run_dir / "logs" / "train.jsonl").read_text().splitlines()]
    val, test = results["metrics"]["val"], results["metrics"]["test"]
    return {"wall": results["wall_time_s"], "train": results["cost"]["train_seconds"],
            "rollout": sum(x["rollout_s"] for x in lines), "update": sum(x["update_s"] for x in lines),
            "val": val["sentiment"], "test": test["sentiment"], "ppl": val["perplexity"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--output-dir", default="runs/whole_run_speed")
    args = parser.parse_args()
    rows = {}
    for name in args.variants:
        run_args = ["task=imdb", "algo=ppo", "profile=mini", f"seed={args.seed}", f"threads={args.threads}",
                    f"output_dir={args.output_dir}/{name}", *VARIANTS[name]]
        print(f"[speed] {name}: {' '.join(run_args)}", flush=True)
        rows[name] = summary(Run(load_config(run_args), run_args).execute())
    base = rows.get("generate", {}).get("wall")
    print("\n| variant | wall s | x generate | train s | rollout s | update s | rest s | val sentiment | "
          "test sentiment | val perplexity |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        ratio = f"{r['wall'] / base:.2f}" if base else "-"
        print(f"| {name} | {r['wall']:.0f} | {ratio} | {r['train']:.0f} | {r['rollout']:.0f} | {r['update']:.0f} | "
              f"{r['wall'] - r['train']:.0f} | {r['val']:.4f} | {r['test']:.4f} | {r['ppl']:.2f} |")


if __name__ == "__main__":
    main()
