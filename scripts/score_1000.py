"""Time every metric on one generated 1,000-sample file and print a table (issue 12's measurement).

The samples are built from the packaged Rotten Tomatoes snippets (seeded, so every run scores the same
texts): each reference joins consecutive snippets up to ~110 words, each sample has two references of
different lengths, and the generation is the first reference with about a fifth of its words dropped or
replaced (a plausible, partly wrong output). Meta carries CommonGen-style concepts and a ToTTo-style
table so Coverage and PARENT run too.

Each metric family is built once (model loading is reported separately) and timed on its own with the
shared tokenisation caches emptied first; the last row times the whole non-model mix in one
``ScorerSet.compute``, which is what an evaluation runs and where shared work is done once.
Timings depend on the machine and on what else runs on it: compare ratios between runs, not seconds.

    python scripts/score_1000.py                      # every non-model metric
    python scripts/score_1000.py --models             # plus BERTScore (packaged MiniLM) and perplexity
    python scripts/score_1000.py --only ter,meteor    # some families
    python scripts/score_1000.py --perplexity-tokens 10000   # perplexity on a prefix of the stream
"""
from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grue.metrics.base import MetricContext, MetricInputs  # noqa: E402
from grue.metrics.registry import build_scorers  # noqa: E402

FAMILIES: dict[str, tuple[str, ...]] = {
    "bleu": ("bleu", "bleu3", "bleu4"),
    "sacrebleu": ("sacrebleu",),
    "chrf": ("chrf",),
    "ter": ("ter",),
    "rouge": ("rouge1", "rouge2", "rougeL", "rougeLsum"),
    "rougeL_max": ("rougeL_max",),
    "meteor": ("meteor",),
    "cider": ("cider",),
    "coverage": ("coverage",),
    "parent": ("parent",),
    "diversity": ("msttr", "distinct_1", "distinct_2", "entropy_1", "entropy_2", "unique_1", "unique_2"),
}
MODEL_FAMILIES = ("bertscore", "perplexity")
OPTIONS = {"bertscore_model": "packaged:minilm", "bertscore_num_layers": 6}


def snippets() -> list[str]:
    from grue.assets.rotten_tomatoes import rotten_tomatoes_rows

    return [text for text, _ in rotten_tomatoes_rows()]


def joined(pool: list[str], start: int, words: int) -> str:
    """Consecutive snippets from ``start`` until the text has at least ``words`` words."""
    parts, count, i = [], 0, start
    while count < words:
        parts.append(pool[i % len(pool)])
        count += len(parts[-1].split())
        i += 1
    return " ".join(parts)


def perturbed(text: str, rng: random.Random, vocabulary: list[str]) -> str:
    """Drop about 10 % of the words and replace about 10 % with random words from the corpus."""
    out = []
    for word in text.split():
        roll = rng.random()
        if roll < 0.1:
            continue
        out.append(rng.choice(vocabulary) if roll < 0.2 else word)
    return " ".join(out)


def sample_inputs(n: int, seed: int = 12) -> MetricInputs:
    pool = snippets()
    rng = random.Random(seed)
    vocabulary = sorted({w for text in pool[:2000] for w in text.split()})
    prompts, generations, references, meta = [], [], [], []
    for i in range(n):
        start = rng.randrange(len(pool))
        first = joined(pool, start, 110)
        second = joined(pool, start, 80) + " " + joined(pool, rng.randrange(len(pool)), 30)
        words = [w.strip(".,!?\"'") for w in first.split() if len(w) > 3]
        prompts.append(joined(pool, start, 200))
        generations.append(perturbed(first, rng, vocabulary))
        references.append([first, second])
        meta.append({"concepts": rng.sample(words, min(4, len(words))),
                     "table": [[f"field{k}", " ".join(words[3 * k: 3 * k + 3])] for k in range(5)]})
    return MetricInputs(prompts=prompts, generations=generations, references=references, meta=meta)


def clear_shared_caches() -> None:
    """Empty the memoised tokenisers, so each family is timed doing its own tokenisation (a tree
    without them, such as the one before issue 12, has nothing to empty)."""
    import grue.metrics.text as text

    getattr(text, "clear_text_caches", lambda: None)()


def timed(names: tuple[str, ...], inputs: MetricInputs,
          ctx: MetricContext) -> tuple[float, tuple[float, float], dict, dict]:
    """(build seconds, (compute wall seconds, compute CPU seconds of this process and its children),
    corpus values, unavailable) for one group of metrics. On a shared machine the CPU time is the
    steadier figure; wall time is what a user waits."""
    start = time.perf_counter()
    scorers = build_scorers(names, ctx)
    built = time.perf_counter() - start
    clear_shared_caches()
    start, cpu = time.perf_counter(), _cpu_seconds()
    values = scorers.compute(inputs) if scorers.scorers else {}
    took = (time.perf_counter() - start, _cpu_seconds() - cpu)
    return built, took, {k: v.corpus for k, v in values.items()}, scorers.unavailable


def _cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def perplexity_context(tokens: int | None) -> tuple[MetricContext, Any]:
    """The packaged SmolLM2-135M as the evaluated policy, and its tokenizer (to count scored tokens)."""
    from types import SimpleNamespace

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from grue.assets.packaged import packaged_model

    path = packaged_model("smollm2-135m")
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    policy = SimpleNamespace(model=model, tokenizer=tokenizer, is_seq2seq=False, device="cpu")
    return MetricContext(policy=policy, options={"perplexity_stride": 512, "perplexity_max_length": 1024}), tokenizer


def references_prefix(inputs: MetricInputs, tokenizer: Any, tokens: int | None) -> MetricInputs:
    """The first samples whose references hold about ``tokens`` tokens (all of them when None)."""
    if tokens is None:
        return inputs
    kept, count = [], 0
    for refs in inputs.references:
        if count >= tokens:
            break
        kept.append(refs)
        count += sum(len(tokenizer(r, add_special_tokens=False)["input_ids"]) for r in refs)
    n = len(kept)
    return MetricInputs(prompts=inputs.prompts[:n], generations=inputs.generations[:n], references=kept)


def matmul_flops_per_second(size: int = 1024, repeats: int = 20) -> float:
    """Measured float32 matmul throughput of this machine with torch's current thread count."""
    import torch

    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return 2 * size**3 * repeats / (time.perf_counter() - start)


def forward_flops(model: Any, tokens: int, mean_context: float, head_tokens: int = 0) -> float:
    """Forward FLOPs of ``model`` over ``tokens`` tokens: 2 per weight per token outside the embeddings,
    the attention products (QK^T and AV, 4 x layers x hidden x the mean attended span), and the
    vocabulary projection for ``head_tokens`` of them."""
    config = model.config
    body = sum(p.numel() for name, p in model.named_parameters() if "embed" not in name and "lm_head" not in name)
    attention = 4 * config.num_hidden_layers * config.hidden_size * mean_context
    return tokens * (2 * body + attention) + head_tokens * 2 * config.vocab_size * config.hidden_size


def run_bertscore(inputs: MetricInputs) -> None:
    """BERTScore with the packaged MiniLM, and the compute floor of encoding every distinct text once."""
    ctx = MetricContext(options=dict(OPTIONS))
    built, (took, cpu), values, unavailable = timed(("bertscore",), inputs, ctx)
    if unavailable:
        print(f"{'bertscore':<12} unavailable: {unavailable['bertscore']}", flush=True)
        return
    scorer = build_scorers(("bertscore",), ctx).scorers[0]
    texts = [g for g in inputs.generations] + [r for refs in inputs.references for r in refs]
    lengths = [len(ids) for ids in scorer.token_ids(texts).values()]
    tokens = sum(lengths)
    floor = forward_flops(scorer.model, tokens, sum(n * n for n in lengths) / tokens) / matmul_flops_per_second()
    print(f"{'bertscore':<12} {took:9.1f} s {cpu:7.1f} s   (build {built:.1f} s)   {tokens} tokens encoded; "
          f"compute floor {floor:.1f} s ({took / floor:.2f}x); bertscore {values['bertscore']:.4f}", flush=True)


def run_perplexity(inputs: MetricInputs, tokens: int | None) -> None:
    from grue.metrics.lm import sliding_windows

    ctx, tokenizer = perplexity_context(tokens)
    subset = references_prefix(inputs, tokenizer, tokens)
    stream = "\n\n".join(r for refs in subset.references for r in refs)
    n_tokens = len(tokenizer(stream, add_special_tokens=False)["input_ids"])
    windows = sliding_windows(n_tokens, 1024, 512)
    processed, scored = sum(e - b for b, e, _ in windows), sum(e - f for _, e, f in windows)
    _, (took, cpu), values, _ = timed(("perplexity",), subset, ctx)
    flops = forward_flops(ctx.policy.model, processed, 1024 / 2, head_tokens=scored)  # causal: half the window on average
    floor = flops / matmul_flops_per_second()
    print(f"{'perplexity':<12} {took:9.1f} s {cpu:7.1f} s   {scored} tokens scored, {scored / took:.0f} tokens/s; "
          f"compute floor {floor:.1f} s ({took / floor:.2f}x); value {values.get('perplexity', math.nan):.3f}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="number of samples (1000)")
    parser.add_argument("--only", default="", help="comma-separated families to time (default: all non-model ones)")
    parser.add_argument("--models", action="store_true", help="also time BERTScore and perplexity")
    parser.add_argument("--perplexity-tokens", type=int, default=None,
                        help="score perplexity on the first samples holding about this many reference tokens")
    args = parser.parse_args()
    known = set(FAMILIES) | set(MODEL_FAMILIES)
    only = [f for f in args.only.split(",") if f]
    if unknown := [f for f in only if f not in known]:
        sys.exit(f"unknown family {unknown[0]!r}; known: {', '.join(sorted(known))}")
    families = only or list(FAMILIES) + (list(MODEL_FAMILIES) if args.models else [])

    inputs = sample_inputs(args.n)
    words = sum(len(g.split()) for g in inputs.generations) / args.n
    print(f"{args.n} samples, {words:.0f} words per generation, 2 references each", flush=True)
    ctx = MetricContext(options=dict(OPTIONS))
    print(f"{'family':<12} {'wall':>11} {'CPU':>9}", flush=True)
    total = 0.0
    for family in families:
        if family == "perplexity":
            run_perplexity(inputs, args.perplexity_tokens)
            continue
        if family == "bertscore":
            run_bertscore(inputs)
            continue
        built, (took, cpu), values, unavailable = timed(FAMILIES.get(family, (family,)), inputs, ctx)
        total += took if family in FAMILIES else 0.0
        shown = ", ".join(f"{k} {v:.4f}" for k, v in values.items())
        note = f"unavailable: {next(iter(unavailable.values()))}" if unavailable else shown
        print(f"{family:<12} {took:9.1f} s {cpu:7.1f} s   (build {built:.1f} s)   {note}", flush=True)
    lexical = [f for f in families if f in FAMILIES]
    if len(lexical) > 1:
        names = tuple(n for f in lexical for n in FAMILIES[f])
        _, (together, cpu), _, _ = timed(names, inputs, ctx)
        print(f"{'one mix':<12} {together:9.1f} s {cpu:7.1f} s   all {len(lexical)} families above in one evaluation "
              f"(sum of separate runs {total:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
