"""Time and memory of sampling one rollout batch three ways, on bench_ppo.py's setting.

SmolLM2-135M (packaged), 16 mini-IMDB prompts x 48 sampled tokens, top-k 0 unless --top-k:
- `generate`: plain model.generate, no records (the speed a rollout's sampling could reach);
- `scores`: generate() returning every step's processed scores and raw logits, log-probs read off
  the stacked [B, T, V] tensors afterwards (how grue recorded rollouts before grue.policy.step_records);
- `records`: policy.sample as it is now (per-step recorders in generate()'s pipeline).
Timings interleave the variants in one process (medians of --rounds after a warm-up), so machine
load hits all alike; peak RSS is measured in a fresh process per variant (one warm-up and one call),
with the peak reset after the warm-up, so loading the model does not set it. Compare ratios, not seconds.

    .venv/bin/python scripts/bench_rollout.py [--rounds 3] [--threads 1] [--top-k 0]
"""
from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grue.config import load_config  # noqa: E402
from grue.data.imdb import load_imdb_splits  # noqa: E402
from grue.policy.load import load_policy  # noqa: E402
from grue.policy.masking import action_log_probs  # noqa: E402

VARIANTS = ("generate", "scores", "records")


def setup(threads: int, top_k: int):
    torch.set_num_threads(threads)
    cfg = load_config(["task=imdb", "profile=mini", "algo=ppo", f"rollout.top_k={top_k}",
                       "rollout.min_new_tokens=48", "rollout.max_new_tokens=48"])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    prompts = policy.encode([s.prompt for s in load_imdb_splits(cfg)["train"][:16]])
    gen = SimpleNamespace(**{k: getattr(cfg.rollout, k) for k in (
        "do_sample", "top_k", "top_p", "temperature", "num_beams", "length_penalty", "min_new_tokens",
        "max_new_tokens")})
    return policy, prompts, gen


@torch.no_grad()
def run(variant: str, policy, prompts, gen) -> None:
    config = policy.generation_config(gen)
    if variant == "records":
        policy.sample(prompts, gen)
    elif variant == "generate":
        policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                              generation_config=config)
    else:
        config.update(return_dict_in_generate=True, output_scores=True, output_logits=True)
        out = policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                    generation_config=config)
        actions = policy._actions(out.sequences, prompts)
        scores, raw = torch.stack(out.scores, dim=1), torch.stack(out.logits, dim=1).float()
        torch.isfinite(scores)
        action_log_probs(scores, actions), action_log_probs(raw, actions)


def high_water_mark_mib() -> float:
    """Peak RSS since the last reset (VmHWM); ru_maxrss would report model loading's peak instead."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss(variant: str, args: argparse.Namespace) -> float:
    out = subprocess.run([sys.executable, __file__, "--peak-of", variant, "--threads", str(args.threads),
                          "--top-k", str(args.top_k)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--top-k", type=int, default=0)
    parser.add_argument("--peak-of", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    policy, prompts, gen = setup(args.threads, args.top_k)
    if args.peak_of:
        run(args.peak_of, policy, prompts, gen)
        Path("/proc/self/clear_refs").write_text("5")  # Linux: reset the peak RSS to the current RSS
        run(args.peak_of, policy, prompts, gen)
        print(high_water_mark_mib())
        return
    for variant in VARIANTS:  # warm-up
        run(variant, policy, prompts, gen)
    times: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for _ in range(args.rounds):
        for variant in VARIANTS:
            start = time.perf_counter()
            run(variant, policy, prompts, gen)
            times[variant].append(time.perf_counter() - start)
    tokens = prompts.input_ids.shape[0] * gen.max_new_tokens
    base = statistics.median(times["generate"])
    print(f"{'variant':<10} {'median s':>9} {'tokens/s':>9} {'x generate':>11} {'peak RSS MiB':>13}")
    for variant in VARIANTS:
        median = statistics.median(times[variant])
        print(f"{variant:<10} {median:9.2f} {tokens / median:9.1f} {median / base:11.2f} "
              f"{peak_rss(variant, args):13.0f}", flush=True)


if __name__ == "__main__":
    main()
