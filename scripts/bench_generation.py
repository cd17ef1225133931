"""Tokens per second of generation four ways, on the presets' settings, in one interleaved run.

Two settings:
- `causal`: SmolLM2-135M (packaged), mini-IMDB prompts, `--new-tokens` sampled tokens (48, exactly: the
  min-length rule holds EOS off), top-k 50 (the IMDB presets' sampling); a rollout round is the PPO mini
  preset's 16 episodes, an evaluation split is the first `--eval-samples` val prompts at the preset's
  evaluation batch (16).
- `seq2seq`: the encoder-decoder path on WMT16's mini preset (its prompts, top-k 10 sampled rollouts,
  greedy evaluation, 32 new tokens, held fixed by the min-length rule): no T5 checkpoint is packaged, so
  the model is a t5-small-shaped T5 (6+6 layers, d_model 512) with random weights and SmolLM2's
  tokenizer, whose EOS would otherwise come at random.

Variants, per setting:
- `generate`: plain `model.generate` at the preset's batch over the same prompts (no records);
- `rollout`: grue's rollout sampler for one round (what the trainer calls, with its per-step records);
- `evaluation`: grue's evaluation generation over the split (grue.run.evaluate.generate);
  both with `decoder=generate` (grue before its own decode loop) and `decoder=grue` unless --decoder says;
- `... sampler bf16`: the same two with `decoder=grue` and the sampler on a bf16 copy of the weights
  (`rollout.precision` / `generation.precision`, grue/policy/precision.py; --sampler-precision, none to leave
  them out), the policy staying fp32. The rollout's figure includes what the trainer pays for it each
  iteration: refreshing the copy (the weights are marked changed before each call, as an update changes them)
  and the learner's forward that recomputes the round's log-probs (`: its decode alone` leaves that forward out);
- `floor`: the compute floor, forward FLOPs of the generated tokens (every weight matrix, the vocabulary
  head and attention over the context) over the machine's measured matmul rate (the best of a few fp32
  GEMMs the size of the model's, timed in the same rounds).
Timings interleave the variants in one process (medians of `--rounds` after a warm-up), so machine load
hits all alike. The machine is shared: read the ratios, not the seconds.

    .venv/bin/python scripts/bench_generation.py [--settings causal seq2seq] [--rounds 2] [--threads 2]
        [--new-tokens 48] [--eval-samples 64] [--decoder grue|generate] [--no-warmup] [--mixed-precision bf16]
        [--sampler-precision bf16|fp16|none]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from types import SimpleNamespace
from pathlib import Path
from typing import Any, Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grue.config import load_config  # noqa: E402
from grue.policy.base import valid_actions  # noqa: E402
from grue.policy.load import load_policy  # noqa: E402
from grue.run import evaluate  # noqa: E402
from grue.train.rl import rollout as rollout_module  # noqa: E402
from tasks import get_task  # noqa: E402


@dataclass
class Setting:
    name: str
    cfg: Any
    policy: Any
    round_samples: list          # one rollout round
    eval_samples: list           # one evaluation split
    rollout_batch: int
    eval_batch: int


def causal_setting(args: argparse.Namespace) -> Setting:
    n = args.new_tokens
    cfg = load_config(["task=imdb", "profile=mini", "algo=ppo", "seed=0", f"rollout.min_new_tokens={n}",
                       f"rollout.max_new_tokens={n}", f"generation.min_new_tokens={n}",
                       f"generation.max_new_tokens={n}", f"ppo.steps_per_update={16 * n}"])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    splits = get_task("imdb").loader(cfg)
    episodes = int(cfg.ppo.steps_per_update) // n  # the preset's round: 16 episodes
    return Setting("causal", cfg, policy, splits["train"][:episodes], splits["val"][:args.eval_samples],
                   int(cfg.ppo.rollout_batch_size), int(cfg.eval.batch_size))


def seq2seq_setting(args: argparse.Namespace) -> Setting:
    from transformers import AutoTokenizer, T5Config, T5ForConditionalGeneration

    from grue.assets.resolve import resolve_model
    from grue.policy.seq2seq import Seq2SeqPolicy

    n = 32  # the preset's max_new_tokens, held fixed: a random model's EOS comes at random
    cfg = load_config(["task=wmt16", "profile=mini", "algo=ppo", "seed=0", "model.kind=seq2seq",
                       "model.truncation_side=right", f"rollout.min_new_tokens={n}", f"generation.min_new_tokens={n}"])
    tokenizer = AutoTokenizer.from_pretrained(resolve_model("packaged:smollm2-135m"))
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(T5Config(
        vocab_size=len(tokenizer), d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_heads=8,
        pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)).eval()
    policy = Seq2SeqPolicy(model, tokenizer, cfg.model.max_prompt_length, cfg.model.padding_side,
                           cfg.model.truncation_side, "cpu")
    splits = get_task("wmt16").loader(cfg)
    episodes = int(cfg.ppo.steps_per_update) // int(cfg.rollout.max_new_tokens)
    return Setting("seq2seq", cfg, policy, splits["train"][:episodes], splits["val"][:args.eval_samples],
                   int(cfg.ppo.rollout_batch_size), int(cfg.eval.batch_size))


# -- the variants: each returns the number of generated tokens (up to and including EOS) -------------------
def _count(policy: Any, actions: torch.Tensor) -> int:
    return int(valid_actions(actions, policy.eos_id).sum())


@torch.no_grad()
def run_generate(s: Setting, samples: list, gen: Any, batch: int) -> int:
    """Plain generate() at `batch` rows, as a user of transformers would call it."""
    tokens = 0
    for start in range(0, len(samples), batch):
        prompts = s.policy.encode([x.prompt for x in samples[start:start + batch]])
        out = s.policy.model.generate(input_ids=prompts.input_ids, attention_mask=prompts.attention_mask,
                                      generation_config=s.policy.generation_config(gen))
        tokens += _count(s.policy, s.policy._actions(out, prompts))
    return tokens


def with_decoder(gen: Any, decoder: str, precision: str = "fp32") -> SimpleNamespace:
    """The decoding settings `gen` with `decoder` (grue or generate) and the sampler's `precision`."""
    fields = {k: gen[k] for k in gen} if hasattr(gen, "keys") else dict(vars(gen))
    return SimpleNamespace(**{**fields, "decoder": decoder, "precision": precision})


@torch.no_grad()
def weights_changed(policy: Any) -> None:
    """Mark the policy's weights as written (as an update writes them), so a low-precision sampler copies them again."""
    next(policy.model.parameters()).add_(0.0)


@torch.no_grad()
def run_rollout(s: Setting, decoder: str, precision: str = "fp32") -> int:
    """The trainer's sampler for one round (the records PPO needs included), without reward and reference."""
    sample = getattr(rollout_module, "sample_rollout", None)
    if sample is not None:
        if precision != "fp32":
            weights_changed(s.policy)
        rollout = sample(s.policy, s.round_samples, with_decoder(s.cfg.rollout, decoder, precision), s.rollout_batch,
                         seed=0, iteration=0)
        return int(rollout.valid.sum())
    # before grue.policy.decode: sample_episodes' loop over rollout batches
    prompts = s.policy.encode([x.prompt for x in s.round_samples])
    tokens = 0
    for start in range(0, len(s.round_samples), s.rollout_batch):
        tokens += int(s.policy.sample(prompts.select(slice(start, start + s.rollout_batch)), s.cfg.rollout).valid.sum())
    return tokens


@torch.no_grad()
def run_low_precision_decode(s: Setting, precision: str) -> int:
    """The low-precision sampler's decode alone (its copy refreshed first), without the learner's recompute."""
    from grue.policy.precision import sampling_policy

    weights_changed(s.policy)
    sampler = sampling_policy(s.policy, precision)
    rollout = rollout_module._sample_rollout(sampler, s.round_samples, with_decoder(s.cfg.rollout, "grue", precision),
                                             s.rollout_batch, None, 0, 0)
    return int(rollout.valid.sum())


@torch.no_grad()
def run_evaluation(s: Setting, decoder: str, precision: str = "fp32") -> int:
    """grue's evaluation generation. Texts do not say how many tokens made them: the count is plain generate's
    on the same split and settings (the same tokens under greedy decoding or a fixed length, the same
    distribution of lengths when sampling)."""
    evaluate.generate(s.policy, s.eval_samples, with_decoder(s.cfg.generation, decoder, precision), s.eval_batch)
    return -1


# -- the compute floor ---------------------------------------------------------------------------------------
def matmul_rate(threads: int, dtype: torch.dtype = torch.float32) -> float:
    """FLOP/s of the best of a few GEMMs (in `dtype`) shaped like a 135M model's layers at a large batch."""
    best = 0.0
    for m, k, n in ((1024, 576, 1536), (1024, 1536, 576), (512, 576, 4096)):
        a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
        a @ b
        start = time.perf_counter()
        reps = 10
        for _ in range(reps):
            a @ b
        best = max(best, 2 * m * k * n * reps / (time.perf_counter() - start))
    return best


def flops_per_token(s: Setting, samples: list, new_tokens: int) -> float:
    """Forward FLOPs of one generated token: 2 per weight of every matrix it multiplies (the vocabulary head
    included; embeddings are lookups; an encoder-decoder's encoder runs once per prompt and is left out) plus
    attention's two products over the positions it attends to (the prompt's mean length and, on average,
    half the generated tokens)."""
    model, c = s.policy.model, s.policy.model.config
    weights = sum(m.weight.numel() for n, m in model.named_modules()
                  if isinstance(m, torch.nn.Linear) and not n.startswith("encoder"))
    prompt = float(s.policy.encode([x.prompt for x in samples]).attention_mask.sum(-1).float().mean())
    if s.policy.is_seq2seq:  # self-attention over the decoded tokens, cross-attention over the prompt
        attention = 2 * 2 * c.num_decoder_layers * c.num_heads * c.d_kv * (new_tokens / 2 + prompt)
    else:
        attention = 2 * 2 * c.num_hidden_layers * c.num_attention_heads * c.head_dim * (prompt + new_tokens / 2)
    return 2 * weights + attention


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", nargs="+", default=["causal", "seq2seq"], choices=("causal", "seq2seq"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--new-tokens", type=int, default=48, help="causal setting's sampled tokens")
    parser.add_argument("--eval-samples", type=int, default=64, help="val prompts an evaluation generates for")
    parser.add_argument("--no-warmup", dest="warmup", action="store_false",
                        help="time every round (a loaded machine makes a whole warm-up round costly)")
    parser.add_argument("--decoder", choices=("grue", "generate"), default=None,
                        help="grue's variants with this decoder only (default: both, generate being grue before "
                             "grue.policy.decode)")
    parser.add_argument("--mixed-precision", choices=("no", "bf16"), default="no",
                        help="run every variant under bf16 autocast (model.mixed_precision=bf16; fp32 weights), "
                             "the floor then at the bf16 GEMM rate")
    parser.add_argument("--sampler-precision", choices=("bf16", "fp16", "none"), default="bf16",
                        help="also time the rollout sampler and evaluation with decoder=grue on a copy of the weights "
                             "at this precision (none: leave them out)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    settings = [causal_setting(args) if name == "causal" else seq2seq_setting(args) for name in args.settings]
    gemm_dtype = torch.bfloat16 if args.mixed_precision == "bf16" else torch.float32
    if args.mixed_precision == "bf16":  # as the trainer does: every forward of the model under autocast
        from grue.runtime.accelerator import autocast_forward

        for s in settings:
            autocast_forward(s.policy.model, ("cpu", "bfloat16"))
    variants: list[tuple[str, Setting, Callable[[], int]]] = []
    decoders = ["generate", "grue"] if args.decoder is None else [args.decoder]
    for s in settings:
        variants.append((f"{s.name} generate (rollout round, batch {s.rollout_batch})", s,
                         lambda s=s: run_generate(s, s.round_samples, s.cfg.rollout, s.rollout_batch)))
        variants += [(f"{s.name} rollout sampler, decoder={d}", s, lambda s=s, d=d: run_rollout(s, d))
                     for d in decoders]
        low = args.sampler_precision
        if low != "none":
            variants.append((f"{s.name} rollout sampler, decoder=grue, sampler {low}", s,
                             lambda s=s, low=low: run_rollout(s, "grue", low)))
            variants.append((f"{s.name} rollout sampler, decoder=grue, sampler {low}: its decode alone", s,
                             lambda s=s, low=low: run_low_precision_decode(s, low)))
        variants.append((f"{s.name} generate (eval split, batch {s.eval_batch})", s,
                         lambda s=s: run_generate(s, s.eval_samples, s.cfg.generation, s.eval_batch)))
        variants += [(f"{s.name} evaluation generation, decoder={d}", s, lambda s=s, d=d: run_evaluation(s, d))
                     for d in decoders]
        if low != "none":
            variants.append((f"{s.name} evaluation generation, decoder=grue, sampler {low}", s,
                             lambda s=s, low=low: run_evaluation(s, "grue", low)))
    times: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    tokens: dict[str, int] = {}
    rates: list[float] = []
    first, previous = (0 if args.warmup else 1), ""
    for round_ in range(first, args.rounds + 1):  # round 0 warms up
        rates.append(matmul_rate(args.threads, gemm_dtype))
        for name, _, fn in variants:
            start = time.perf_counter()
            count = fn()
            tokens[name] = count if count >= 0 else tokens[previous]
            previous = name
            times[name].append(time.perf_counter() - start)
            print(f"  round {round_} {name}: {times[name][-1]:.2f} s", file=sys.stderr, flush=True)
    rate = statistics.median(rates[-args.rounds:])
    import os

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average at the end {load} on {os.cpu_count()} cores (a loaded machine: read the ratios)")
    print(f"threads {args.threads}; mixed precision {args.mixed_precision}; {str(gemm_dtype)[6:]} matmul rate "
          f"{rate / 1e9:.1f} GFLOP/s (median of rounds)")
    print(f"| variant | tokens | median s | tokens/s | x generate | floor tokens/s | x floor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for i, (name, s, _) in enumerate(variants):
        median = statistics.median(times[name][-args.rounds:])
        base_name = next(n for n, _, _ in reversed(variants[:i + 1]) if " generate (" in n)  # its group's generate
        base = tokens[base_name] / statistics.median(times[base_name][-args.rounds:])
        rollout = "rollout" in name or "round" in name
        gen = s.cfg.rollout if rollout else s.cfg.generation
        floor = rate / flops_per_token(s, s.round_samples if rollout else s.eval_samples, gen.max_new_tokens)
        tps = tokens[name] / median
        print(f"| {name} | {tokens[name]} | {median:.2f} | {tps:.1f} | {tps / base:.2f} | {floor:.0f} | "
              f"{floor / tps:.2f} |")


if __name__ == "__main__":
    main()
