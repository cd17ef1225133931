"""GRPO on an encoder-decoder policy (issue 25): CommonGen mini with the packaged BERT2BERT model.

No T5 or BART checkpoint is packaged, so the seq2seq policy is `packaged:minilm2minilm`: an
EncoderDecoderModel warm-started from two copies of MiniLM (grue/assets/warm_start.py). Its
cross-attention is new, so it is trained by a supervised run first, and GRPO starts from that run
(algo=supervised_grpo, the registry's warm-started GRPO; its supervised run is made or reused by the
same command). Per seed, GRPO's test scores are paired per concept set against the supervised run it
started from: the gain is what GRPO itself added.

    .venv/bin/python scripts/commongen_seq2seq_grpo.py --seeds 0 1 --threads 1 --output-dir docs/studies/commongen_seq2seq_grpo

The supervised settings (all 1,336 training concept sets, 5 epochs at 1e-4) are this study's, not the
mini preset's (200 sets, 1 epoch at 2e-5, which is sized for the pretrained SmolLM2): the new
cross-attention needs them before the decoder writes sentences. GRPO keeps the mini preset; `--set` overrides
it (the GRPO runs only; the supervised run is shared), and the summary file is then named by the overrides.
Every run goes through grue's own runs, so the same command again reuses what is finished;
`--complete-only` runs nothing and tabulates the seeds whose runs are complete.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from grue.board.numbers.paired import paired, prompt_scores
from grue.config import load_config
from grue.config.identity import config_hash
from grue.run.run_dir import RunDir
from grue.run.runner import Run

POLICY = ["model.policy=packaged:minilm2minilm", "model.kind=seq2seq",
          # BERT reads its prompt from [CLS] on: pad and truncate on the right, as T5 tasks do
          "model.padding_side=right", "model.truncation_side=right"]
SUPERVISED = ["data.max_train=null", "supervised.epochs=5", "supervised.learning_rate=1e-4"]
METRICS = ("meteor", "cider", "rougeL", "bertscore")


def run_dir(args: list[str], complete_only: bool) -> Path | None:
    cfg = load_config(args)
    if complete_only:
        found = RunDir.for_config(cfg, config_hash(cfg))
        return found.path if found.complete() else None
    print("[seq2seq-grpo] grue run " + " ".join(args), flush=True)
    return Run(cfg, args).execute()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--eval-n", type=int, default=100, help="val/test concept sets")
    parser.add_argument("--output-dir", default="runs/commongen_seq2seq_grpo")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="overrides for the GRPO runs (e.g. a longer budget: ppo.total_steps=20480)")
    parser.add_argument("--complete-only", action="store_true", help="run nothing; tabulate the complete seeds")
    args = parser.parse_args()

    rows = []
    for seed in args.seeds:
        base = ["task=commongen", "profile=mini", f"seed={seed}", f"threads={args.threads}",
                f"output_dir={args.output_dir}", f"data.max_val={args.eval_n}", f"data.max_test={args.eval_n}",
                *POLICY, *SUPERVISED]
        # the supervised run first: supervised_grpo would make it too, but its own line says which it is
        supervised = run_dir([*base, "algo=supervised"], args.complete_only)
        grpo = run_dir([*base, "algo=supervised_grpo", *args.set], args.complete_only) if supervised else None
        if supervised is None or grpo is None:
            print(f"[seq2seq-grpo] seed {seed}: not complete")
            continue
        doc = json.loads((grpo / "results.json").read_text())
        row = {"seed": seed, "supervised": str(supervised), "grpo": str(grpo),
               "train_generated_tokens": doc.get("cost", {}).get("train_generated_tokens", math.nan),
               "train_seconds": doc.get("cost", {}).get("train_seconds", math.nan),
               "kl_per_token": doc.get("training_kl", {}).get("mean_per_token", math.nan)}
        for metric in METRICS:
            start = prompt_scores(supervised, "test", metric)
            row[f"supervised_{metric}"] = sum(start.values()) / len(start)
            row[metric], row[f"{metric}_gain"], row[f"{metric}_se"] = paired(prompt_scores(grpo, "test", metric), start)
        rows.append(row)

    print(f"\nCommonGen mini, minilm2minilm (seq2seq); test, {args.eval_n} concept sets; GRPO's gain paired per "
          f"concept set against the supervised run it started from (SE); GRPO overrides: {' '.join(args.set) or '-'}\n")
    print("| seed | " + " | ".join(f"{m}: supervised -> GRPO (gain, SE)" for m in METRICS)
          + " | train tokens | train s | KL/token |")
    print("|---" * (len(METRICS) + 4) + "|")
    for r in rows:
        cells = [f"{r[f'supervised_{m}']:.4f} -> {r[m]:.4f} ({r[f'{m}_gain']:+.4f}, {r[f'{m}_se']:.4f})"
                 for m in METRICS]
        print(f"| {r['seed']} | " + " | ".join(cells) + f" | {r['train_generated_tokens']:.0f} | "
              f"{r['train_seconds']:.0f} | {r['kl_per_token']:.3f} |")
    if not args.complete_only and rows:
        name = "-".join(["commongen_seq2seq_grpo", *args.set]).replace("/", "_") + ".json"  # one file per arm
        (Path(args.output_dir) / name).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
