"""`make bench`: grue's PPO and GRPO iterations against TRL's, side by side in one run, on identical prompts.

The setting is docs/speed.md's ("Training speed against TRL"; scripts/bench/common.py): SmolLM2-135M, 16 prompts of 13
tokens, 48 sampled tokens, one PPO epoch in minibatches of 8 episodes (grue: ppo.minibatch=episodes),
2 threads. Two pairs:
- separate critic: grue (`model.value_model=separate`) against TRL 1.12's `trl.experimental.ppo`;
- shared trunk: grue (`model.value_model=shared`) against trl 0.11.4's `PPOTrainer.step`;
and grue's NLPO against grue's PPO. A third pair runs GRPO: grue's (`scripts/bench_grpo.py`) against
the newest TRL's `GRPOTrainer` (1.16; TRL 1.12's stays selectable as `trl-1.12-grpo`), 4 prompts x 4 samples
an iteration on the same prompts and lengths (scripts/bench/grpo_setting.py; docs/speed.md, "GRPO against
TRL 1.16"), with activations kept on both sides and (`-ckpt`) recomputed in the backward pass on both, TRL's
default. PPO stays on TRL 1.12, the last release with a PPO trainer. Each side runs in its own process (peak
RSS is per side), the sides alternate within each round, and the table shows medians over rounds, with the
load average before and after the run. Timings on a shared machine are noisy: read the ratios, and run more
rounds (`--rounds`) before trusting a small one.

    .venv/bin/python scripts/bench_vs_trl.py [--rounds 2] [--iters 3] [--threads 2] [--sides grue-grpo,trl-1.16-grpo,...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "bench"))

from prompts import build as build_prompts  # noqa: E402
from trl_envs import python_of, respell_for_transformers4  # noqa: E402

# grue's sides cut minibatches out of whole episodes (ppo.minibatch=episodes), 8 each, as TRL does;
# grue-separate-tokens is grue's default (random transitions of the whole rollout), for its cost.
# The default run (no --sides) leaves out TRL 1.12's GRPO sides: the GRPO pairs are against the newest TRL.
SIDES = ("grue-separate", "trl-1.12", "grue-shared", "trl-0.11", "grue-nlpo", "grue-separate-tokens",
         "grue-grpo", "trl-1.16-grpo", "grue-grpo-ckpt", "trl-1.16-grpo-ckpt", "trl-1.12-grpo", "trl-1.12-grpo-ckpt")
DEFAULT_SIDES = tuple(s for s in SIDES if not s.startswith("trl-1.12-grpo"))
# the GRPO pair's TRL sides: side -> (environment, runner)
TRL_GRPO = {"trl-1.16-grpo": ("trl-1.16", "run_trl_1_16_grpo.py"),
            "trl-1.12-grpo": ("trl-1.12", "run_trl_1_12_grpo.py")}
PAIRS = (("separate critic: grue / TRL 1.12", "grue-separate", "trl-1.12"),
         ("GRPO: grue / TRL 1.16 GRPOTrainer", "grue-grpo", "trl-1.16-grpo"),
         ("GRPO, checkpointing both: grue / TRL 1.16", "grue-grpo-ckpt", "trl-1.16-grpo-ckpt"),
         ("GRPO: grue / TRL 1.12 GRPOTrainer", "grue-grpo", "trl-1.12-grpo"),
         ("GRPO, checkpointing both: grue / TRL 1.12", "grue-grpo-ckpt", "trl-1.12-grpo-ckpt"),
         ("GRPO: TRL 1.16 / TRL 1.12", "trl-1.16-grpo", "trl-1.12-grpo"),
         ("shared trunk: grue / trl 0.11.4", "grue-shared", "trl-0.11"),
         ("grue NLPO / grue PPO (separate)", "grue-nlpo", "grue-separate"),
         ("grue transition / episode minibatches", "grue-separate-tokens", "grue-separate"))


def command(side: str, prompts: Path, model_dir: Path, iters: int, threads: int) -> list[str]:
    checkpointing = ["--gradient-checkpointing"] if side.endswith("-grpo-ckpt") else []
    if side.startswith("grue-grpo"):
        return [sys.executable, str(HERE / "bench_grpo.py"), "--iters", str(iters), "--prompts", str(prompts),
                "--threads", str(threads), *checkpointing]
    if side.removesuffix("-ckpt") in TRL_GRPO:
        env, runner = TRL_GRPO[side.removesuffix("-ckpt")]
        return [str(python_of(env)), str(HERE / "bench" / runner), str(prompts), str(model_dir), str(iters),
                *checkpointing]
    grue = [sys.executable, str(HERE / "bench_ppo.py"), "--iters", str(iters), "--prompts", str(prompts),
            "--threads", str(threads)]
    if side == "grue-separate-tokens":
        return grue
    grue += ["--minibatch", "episodes"]
    if side == "grue-separate":
        return grue
    if side == "grue-shared":
        return [*grue, "--shared"]
    if side == "grue-nlpo":
        return [*grue, "--nlpo"]
    if side == "trl-1.12":
        return [str(python_of(side)), str(HERE / "bench" / "run_trl_1_12.py"), str(prompts), str(model_dir), str(iters)]
    if side == "trl-0.11":
        return [str(python_of(side)), str(HERE / "bench" / "run_trl_0_11.py"), str(prompts),
                str(respell_for_transformers4(model_dir)), str(iters)]
    raise SystemExit(f"unknown side {side!r}; known: {', '.join(SIDES)}")


def run_side(cmd: list[str], threads: int) -> dict:
    # the TRL sides read their thread count from BENCH_THREADS (scripts/bench/common.py)
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "BENCH_THREADS": str(threads)})
    lines = [l for l in proc.stdout.splitlines() if l.startswith("BENCH ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"[bench] {' '.join(cmd[1:3])} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1].removeprefix("BENCH "))


def table(results: dict[str, list[dict]]) -> str:
    def med(side: str, key: str) -> float:
        return statistics.median(r[key] for r in results[side])

    rows = ["| side | s/iter | rollout | update | peak RSS MiB | rounds |", "|---|---|---|---|---|---|"]
    for side in results:
        rows.append(f"| {side} | {med(side, 'total_s'):.2f} | {med(side, 'rollout_s'):.2f} | "
                    f"{med(side, 'update_s'):.2f} | {med(side, 'peak_rss_mib'):.0f} | {len(results[side])} |")
    rows += ["", "| ratio | s/iter | rollout | update | peak RSS |", "|---|---|---|---|---|"]
    for label, a, b in PAIRS:
        if a in results and b in results:
            rows.append(f"| {label} | " + " | ".join(f"{med(a, k) / med(b, k):.2f}" for k in
                                                    ("total_s", "rollout_s", "update_s", "peak_rss_mib")) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--iters", type=int, default=3, help="measured iterations per side (after one warm-up)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads of every side")
    parser.add_argument("--sides", default=",".join(DEFAULT_SIDES))
    args = parser.parse_args()
    sides = [s for s in args.sides.split(",") if s]
    unknown = [s for s in sides if s not in SIDES]
    if unknown or args.rounds < 1 or args.iters < 1 or args.threads < 1:
        parser.error(f"unknown sides {unknown} (known: {', '.join(SIDES)})" if unknown
                     else "--rounds, --iters and --threads must be at least 1")
    prompts = build_prompts(Path(tempfile.mkdtemp()) / "prompts.json")
    model_dir = Path(json.loads(prompts.read_text())["model"])
    results: dict[str, list[dict]] = {side: [] for side in sides}
    load_before = os.getloadavg()
    for round_no in range(args.rounds):
        for side in sides:
            result = run_side(command(side, prompts, model_dir, args.iters, args.threads), args.threads)
            results[side].append(result)
            print(f"[bench] round {round_no + 1}/{args.rounds} {side}: {result['total_s']:.2f} s/iter "
                  f"(rollout {result['rollout_s']:.2f}, update {result['update_s']:.2f}), "
                  f"peak {result['peak_rss_mib']} MiB; load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    print(table(results))
    print("\nload average (1, 5, 15 min) before the run: " + ", ".join(f"{x:.1f}" for x in load_before)
          + "; after: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
