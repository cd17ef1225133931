"""Peak memory and seconds per PPO iteration of the memory levers, on the setting of scripts/bench_ppo.py.

SmolLM2-135M, 16 mini-IMDB prompts x 48 sampled tokens (top-k 0), 1 PPO epoch in minibatches of 384
transitions, separate critic (`--shared`: a value head on the policy's trunk). Each configuration runs
in a fresh process (its peak RSS is its own): one warm-up iteration and `--iters` measured ones. Beside
each measured peak, `grue plan`'s estimate for the same settings (grue/commands/plan.py).

    .venv/bin/python scripts/bench_memory.py [--iters 1] [--threads 1] [--shared] [--only NAME,NAME]

Configurations (key=value overrides of the run config):
- `whole-logprobs`: today's fp32 full fine-tuning with the update's log-probs and entropy taken from the
  whole [B, T, V] log-softmax, as before grue.policy.logprobs (a monkeypatch of the update's one call);
- `fp32`: full fine-tuning in fp32 (the default);
- `lora`: model.lora.rank=16 (the SmolLM2 preset: q, k, v, o, gate, up, down projections);
- `lora-ckpt`: LoRA and model.gradient_checkpointing=true;
- `lora-ckpt-critic`: the same, and the separate critic trains adapters of its own on its frozen copy of
  the base (model.lora.critic=lora) instead of its whole trunk;
- `bf16`: model.mixed_precision=bf16 (autocast, fp32 master weights).

The machine is shared: read the ratios within one table, not the absolute seconds.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

CONFIGS = {
    "whole-logprobs": [],
    "fp32": [],
    "lora": ["model.lora.rank=16"],
    "lora-ckpt": ["model.lora.rank=16", "model.gradient_checkpointing=true"],
    "lora-ckpt-critic": ["model.lora.rank=16", "model.gradient_checkpointing=true", "model.lora.critic=lora"],
    "bf16": ["model.mixed_precision=bf16"],
}
LABELS = {
    "whole-logprobs": "full fp32, whole [B, T, V] log-probs (before)",
    "fp32": "full fp32 (today)",
    "lora": "LoRA r=16",
    "lora-ckpt": "LoRA r=16 + gradient checkpointing",
    "lora-ckpt-critic": "LoRA r=16 + checkpointing, LoRA critic",
    "bf16": "bf16 autocast (fp32 master weights)",
}


def bench_args(iters: int, shared: bool, extra: list[str]) -> list[str]:
    return ["task=imdb", "profile=mini", "algo=ppo", "seed=0", f"model.value_model={'shared' if shared else 'separate'}",
            "rollout.top_k=0", "rollout.min_new_tokens=48", "rollout.max_new_tokens=48", "ppo.steps_per_update=768",
            f"ppo.total_steps={768 * (iters + 1)}", "ppo.batch_size=384", "ppo.epochs=1", "ppo.rollout_batch_size=16",
            "ppo.minibatch=transitions", *extra]


def whole_tensor_update(policy) -> None:
    """The update's log-probs and entropy from the whole [B, T, V] log-softmax (the path before chunking)."""
    import torch

    from grue.policy.masking import entropy

    def action_stats(model, rollout, hidden=False, entropy_grad=True, chunk=None):
        logp, logp_all, states = policy.log_probs(model, rollout, hidden)
        with torch.enable_grad() if entropy_grad else torch.no_grad():
            return logp, entropy(logp_all), states

    policy.action_stats = action_stats


def one(name: str, iters: int, threads: int, shared: bool) -> dict:
    import torch

    from bench_ppo import LengthReward
    from grue.config import load_config
    from grue.data.imdb import load_imdb_splits
    from grue.policy.load import build_value, load_policy, reference_model
    from grue.runtime.accelerator import make_accelerator
    from grue.train.rl.trainer import RLTrainer

    torch.set_num_threads(threads)
    cfg = load_config(bench_args(iters, shared, CONFIGS[name]))
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    if name == "whole-logprobs":
        whole_tensor_update(policy)
    train = load_imdb_splits(cfg)["train"]
    accelerator = make_accelerator("cpu", Path(tempfile.mkdtemp()), [], mixed_precision=cfg.model.mixed_precision)
    trainer = RLTrainer(cfg, policy, reference_model(policy.model), build_value(cfg, policy), LengthReward(), train,
                        accelerator)
    rows = []
    for i in range(iters + 1):
        start = time.perf_counter()
        stats = trainer.step()
        total = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"[{name}] iteration {i}: {total:.1f} s (rollout {stats['rollout_s']:.1f}, update {stats['update_s']:.1f}),"
              f" peak RSS so far {peak:.0f} MiB", file=sys.stderr, flush=True)
        if i:
            rows.append((total, stats["rollout_s"], stats["update_s"]))
    prompt = max(int(p.attention_mask.sum(-1).max()) for p in [policy.encode([s.prompt for s in train[:256]])])
    return {"name": name, "s_iter": statistics.mean(r[0] for r in rows), "rollout_s": statistics.mean(r[1] for r in rows),
            "update_s": statistics.mean(r[2] for r in rows),
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "prompt_tokens": prompt}


def saved_per_token_block(tokens: int = 72) -> float:
    """Values autograd keeps per token per transformer block in the policy's forward pass (fp32, full
    fine-tuning), counted once per storage, on the bench's model: what grue plan's activation count stands for."""
    import torch

    from grue.config import load_config
    from grue.policy.load import load_policy

    cfg = load_config(bench_args(1, False, []))
    model = load_policy(cfg, cfg.model.policy, "cpu").model
    seen: dict[int, int] = {}

    def pack(tensor):
        seen[tensor.untyped_storage().data_ptr()] = tensor.untyped_storage().nbytes() // 4
        return tensor

    ids = torch.randint(5, 1000, (1, tokens))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model.model(input_ids=ids, use_cache=False)  # the trunk: blocks only, no vocabulary head
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept = sum(n for ptr, n in seen.items() if ptr not in weights)
    return kept / (tokens * model.config.num_hidden_layers)


def in_fresh_process(cmd: list[str], threads: int, what: str) -> dict:
    """Run one measurement in a process of its own (its peak RSS is its own) and read the JSON line it prints
    last; its stderr's tail is passed on."""
    import os

    out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "OMP_NUM_THREADS": str(threads)})
    sys.stderr.write(out.stderr[-2000:])
    if out.returncode:
        raise SystemExit(f"{what} failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def estimate_mib(name: str, shared: bool, prompt_tokens: int) -> float:
    from grue.commands.plan import MIB, estimate
    from grue.config import load_config

    return estimate(load_config(bench_args(1, shared, CONFIGS[name])), prompt_tokens=prompt_tokens).peak / MIB


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--shared", action="store_true")
    parser.add_argument("--only", help="comma-separated configuration names")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--count-saved", action="store_true",
                        help="print the values autograd keeps per token per block of the policy, and stop")
    args = parser.parse_args()
    if args.count_saved:
        import torch

        torch.set_num_threads(args.threads)
        print(f"autograd keeps {saved_per_token_block():,.0f} values per token per block")
        return
    if args.one:
        print(json.dumps(one(args.one, args.iters, args.threads, args.shared)))
        return
    names = args.only.split(",") if args.only else list(CONFIGS)
    results = []
    for name in names:
        cmd = [sys.executable, __file__, "--one", name, "--iters", str(args.iters), "--threads", str(args.threads),
               *(["--shared"] if args.shared else [])]
        results.append(in_fresh_process(cmd, args.threads, name))
    base = next((r for r in results if r["name"] == "fp32"), results[0])
    print(f"critic: {'shared trunk' if args.shared else 'separate'}; threads {args.threads}; "
          f"{args.iters} measured iteration(s) after one warm-up")
    print("| configuration | s/iter | rollout | update | peak RSS MiB | x fp32 | estimate MiB | estimate / measured |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        est = estimate_mib(r["name"], args.shared, r["prompt_tokens"])
        print(f"| {LABELS[r['name']]} | {r['s_iter']:.1f} | {r['rollout_s']:.1f} | {r['update_s']:.1f} | "
              f"{r['peak_mib']:,.0f} | {r['peak_mib'] / base['peak_mib']:.2f} | {est:,.0f} | {est / r['peak_mib']:.2f} |")


if __name__ == "__main__":
    main()
