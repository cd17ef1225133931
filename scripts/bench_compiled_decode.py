"""Does a compiled decode step pay? (docs/speed.md, "Generation": tried and dropped.)

SmolLM2-135M (packaged), mini-IMDB val prompts, `--rows` episodes of `--tokens` sampled tokens with the
records a rollout keeps, through grue.policy.decode.decode: once eagerly, then with the model's forward
wrapped in torch.compile (dynamic shapes), then both again. Prints each decode's seconds (the first
compiled one includes compilation), the graphs dynamo compiled and whether the tokens agree.

    .venv/bin/python scripts/bench_compiled_decode.py [--rows 16] [--tokens 4] [--threads 1]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent / "bench"))

from decode_setting import smollm2_imdb  # noqa: E402
from grue.policy.decode import decode  # noqa: E402
from grue.policy.sampling import episode_keys  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--tokens", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg, policy, val = smollm2_imdb(args.tokens)
    prompts = policy.encode([s.prompt for s in val[:args.rows]])
    keys = episode_keys("bench", range(args.rows))
    eager = policy.model.forward
    compiled = torch.compile(eager, dynamic=True)
    tokens = {}
    for round_ in (1, 2):
        for name, forward in (("eager", eager), ("compiled", compiled)):
            policy.model.forward = forward
            start = time.perf_counter()
            out = decode(policy, prompts, cfg.rollout, keys, record=True)
            seconds = time.perf_counter() - start
            tokens[name] = out.actions
            graphs = torch._dynamo.utils.counters["stats"]["unique_graphs"]
            print(f"round {round_} {name:8s} {seconds:8.2f} s  graphs compiled so far {graphs}", flush=True)
        print(f"round {round_}: same tokens: {bool(torch.equal(tokens['eager'], tokens['compiled']))}", flush=True)


if __name__ == "__main__":
    main()
