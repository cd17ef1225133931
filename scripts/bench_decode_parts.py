"""What a decode's time is made of, and what packed oneDNN weights change (docs/speed.md, "Generation").

SmolLM2-135M (packaged), mini-IMDB val prompts, `--tokens` sampled tokens (top-k 50, EOS held off), with
the records a rollout keeps. For each of `--rows`: seconds of grue.policy.decode.decode with torch's own
matrix products and with packed oneDNN weights (grue.policy.packed_linear), interleaved over `--rounds`
(the last round printed), whether the two drew the same tokens, how far their recorded log-probs are
apart, and how far the records of torch's products are from the update's recomputation (one forward pass
over prompt + actions, grue.policy.base.LMPolicy.log_probs). `--profile` prints the operators of one decode at the first row count by own CPU time.

    .venv/bin/python scripts/bench_decode_parts.py [--rows 16 64] [--tokens 8] [--rounds 2] [--threads 1]
        [--profile]
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
from grue.policy.packed_linear import packed_linears  # noqa: E402
from grue.policy.sampling import episode_keys  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--tokens", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg, policy, val = smollm2_imdb(args.tokens)
    for rows in args.rows:
        prompts = policy.encode([s.prompt for s in val[:rows]])
        keys = episode_keys("bench", range(rows))
        if args.profile and rows == args.rows[0]:
            decode(policy, prompts, cfg.rollout, keys, record=True)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                decode(policy, prompts, cfg.rollout, keys, record=True)
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
        result = {}
        for _ in range(args.rounds):
            for packed in (False, True):
                start = time.perf_counter()
                with packed_linears(policy.model, packed):
                    out = decode(policy, prompts, cfg.rollout, keys, record=True)
                result[packed] = (time.perf_counter() - start, out)
        (plain_s, plain), (packed_s, packed_out) = result[False], result[True]
        rollout = policy.rollout_of(prompts, plain.actions, plain.logp, plain.raw_logp, plain.allowed, cfg.rollout)
        with torch.no_grad():
            recomputed, _, _ = policy.log_probs(policy.model, rollout)
        valid = rollout.valid.bool()
        print(f"{rows} rows x {args.tokens} tokens: torch {plain_s:.2f} s, packed {packed_s:.2f} s "
              f"({plain_s / packed_s:.2f}x); same tokens {torch.equal(plain.actions, packed_out.actions)}; "
              f"max |log-prob difference| {(plain.logp - packed_out.logp).abs().max().item():.1e}; "
              f"torch's records against the update's recomputation "
              f"{(recomputed[valid] - rollout.logp[valid]).abs().max().item():.1e}")


if __name__ == "__main__":
    main()
