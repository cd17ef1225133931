"""FIXTURES: synthetic run directories written by the tests, in the results.json schema.

Nothing here is a real measurement. Values are drawn from a seeded generator so each test can
recompute the expected statistics independently with pandas.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

IMDB_METRICS = {"sentiment": (0.55, 0.02), "perplexity": (34.0, 0.4), "msttr": (0.68, 0.004),
                "distinct_1": (0.044, 0.001)}
ALGO_SHIFT = {"zero_shot": -0.06, "supervised": -0.01, "ppo": 0.05, "nlpo": 0.06,
              "supervised_ppo": 0.07, "supervised_nlpo": 0.075}
REWARDS = {"zero_shot": None, "supervised": None}


def results_doc(task: str, algo: str, seed: int, metrics: dict[str, dict[str, float]], *,
                profile: str = "mini", reward: str | None = "sentiment", init_model: str = "fixture:tiny-gpt2",
                higher_is_better: dict[str, bool] | None = None) -> dict[str, Any]:
    """A results.json document that passes validate_results."""
    names = {m for split in metrics.values() for m in split}
    return {
        "schema_version": 1, "status": "complete", "task": task, "algo": algo, "profile": profile,
        "seed": seed, "reward": reward, "init_model": init_model, "comparable_to_paper": profile == "paper",
        "config_hash": f"fixture-{task}-{algo}-{reward}", "config": {}, "versions": {"grue": "fixture"},
        "git_commit": None, "created": "2026-01-01T00:00:00+00:00", "wall_time_s": 1.0,
        "splits": {s: {"source": "validation" if s == "val" else "test", "n_samples": 8} for s in metrics},
        "metrics": metrics, "metrics_unavailable": {},
        "higher_is_better": higher_is_better or {m: m not in ("perplexity", "ter") for m in names},
    }


def write_run(root: Path, doc: dict[str, Any], name: str | None = None) -> Path:
    """Write one run directory holding results.json; returns the directory."""
    name = name or f"{doc['task']}-{doc['algo']}-{doc.get('reward') or 'none'}-{doc['profile']}-s{doc['seed']}"
    run_dir = root / name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    return run_dir


def write_logs(run_dir: Path, algo: str, seed: int, iterations: int = 5) -> None:
    """Fixture train/eval logs and validation predictions in the runner's JSONL formats."""
    (run_dir / "logs").mkdir(exist_ok=True)
    (run_dir / "predictions").mkdir(exist_ok=True)
    shift = ALGO_SHIFT[algo]
    train, evals = [], []
    for it in range(iterations):
        if algo not in ("zero_shot", "supervised"):
            train.append({"iteration": it, "tokens": 768, "reward_mean": 0.5 + shift * it / 4 + 0.01 * seed,
                          "kl": 0.01 * it, "kl_coef": 0.1})
        evals.append({"iteration": it, "split": "val",
                      "metrics": {"sentiment": 0.5 + shift * it / 4 + 0.005 * seed, "perplexity": 33 + it * 0.2}})
    (run_dir / "logs" / "train.jsonl").write_text("".join(json.dumps(l) + "\n" for l in train) + "{half a line")
    (run_dir / "logs" / "eval.jsonl").write_text("".join(json.dumps(l) + "\n" for l in evals))
    preds = [{"id": f"val-{i}", "prompt": f"<fixture prompt {i}> this movie", "references": [f"fixture ref {i}"],
              "generation": f"[{algo} s{seed}] generation {i} <b>not bold</b>", "scores": {"sentiment": 0.1 * i}}
             for i in range(4)]
    (run_dir / "predictions" / "val.jsonl").write_text("".join(json.dumps(l) + "\n" for l in preds))


def imdb_grid(root: Path, seeds: int = 5, algos: tuple[str, ...] = tuple(ALGO_SHIFT), rng_seed: int = 0,
              logs: bool = False) -> list[Path]:
    """Many seeds of every algorithm on IMDB with val and test splits; a fixture, not results."""
    rng = np.random.default_rng(rng_seed)
    dirs = []
    for algo in algos:
        for seed in range(seeds):
            metrics = {}
            for split in ("val", "test"):
                values = {}
                for metric, (base, spread) in IMDB_METRICS.items():
                    shift = ALGO_SHIFT[algo] * (base if metric != "perplexity" else 0.3 * base)
                    values[metric] = float(base + shift + rng.normal(0, spread))
                metrics[split] = values
            doc = results_doc("imdb", algo, seed, metrics, reward=REWARDS.get(algo, "sentiment"))
            dirs.append(write_run(root, doc))
            if logs:
                write_logs(dirs[-1], algo, seed)
    return dirs


def controlled_grid(root: Path, means: dict[str, tuple[float, float]], seeds: int = 4, noise: float = 0.002,
                    task: str = "imdb", rng_seed: int = 1) -> list[Path]:
    """IMDB runs whose (sentiment, perplexity) means are set per algorithm, with small seeded noise."""
    rng = np.random.default_rng(rng_seed)
    dirs = []
    for algo, (sentiment, perplexity) in means.items():
        for seed in range(seeds):
            metrics = {split: {"sentiment": float(sentiment + rng.normal(0, noise)),
                               "perplexity": float(perplexity + rng.normal(0, noise * 10))} for split in ("val", "test")}
            doc = results_doc(task, algo, seed, metrics, reward=REWARDS.get(algo, "sentiment"))
            dirs.append(write_run(root, doc))
    return dirs


def run_config(algo: str, seed: int, **overrides: Any) -> dict[str, Any]:
    """A resolved-config-shaped dict, as results.json records it; `overrides` take dotted keys ("kl.target")."""
    config: dict[str, Any] = {
        "task": "imdb", "algo": algo, "profile": "mini", "seed": seed, "output_dir": "runs", "device": "cpu",
        "num_processes": 1, "ppo": {"learning_rate": 3e-05, "total_steps": 6144}, "kl": {"target": 0.5},
        "eval": {"eval_every": 4, "save_every": 2},
    }
    for dotted, value in overrides.items():
        node = config
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node[key]
        node[leaf] = value
    return config


def ablation_pair(root: Path, seeds: int = 2, rng_seed: int = 3,
                  targets: tuple[float | None, ...] = (0.5, None)) -> dict[float | None, list[Path]]:
    """PPO on IMDB at two KL targets (the paper's Table 5 ablation, in miniature), `seeds` seeds each.

    The no-KL setting gets a clearly higher sentiment and perplexity, as in the paper.
    """
    rng = np.random.default_rng(rng_seed)
    dirs: dict[float | None, list[Path]] = {}
    for target in targets:
        shift = 0.2 if target is None else 0.0
        for seed in range(seeds):
            metrics = {split: {"sentiment": float(0.6 + shift + rng.normal(0, 0.01)),
                               "perplexity": float(34.0 + 20 * shift + rng.normal(0, 0.2))} for split in ("val", "test")}
            doc = results_doc("imdb", "ppo", seed, metrics)
            doc["config"] = run_config("ppo", seed, **{"kl.target": target, "output_dir": f"runs/kl-{target}"})
            dirs.setdefault(target, []).append(write_run(root, doc, f"imdb-ppo-kl{target}-s{seed}"))
    return dirs
