"""Live tracking of a run through accelerate's trackers: TensorBoard by default, W&B when asked for.

What is tracked: every training iteration's statistics (the lines of logs/train.jsonl), every
evaluation's metrics (`eval/<split>/<metric>`), and at each intermediate evaluation a sample table: a
fixed sample of validation prompts (the same prompts at every evaluation and in every run of a task)
with the policy's current generation (sampled as training samples, `rollout.*` decoding, from a fixed
seed), its reward and its KL to the reference model (the sum over the generated tokens of
log pi(a|s) - log pi_ref(a|s), the quantity the KL penalty controls). The table is
written to logs/samples.jsonl (one line per prompt and evaluation) and to each tracker: a Markdown
table in TensorBoard's text plugin, a wandb.Table in W&B.

Settings (`tracking.*`, never part of the config hash): `tensorboard` (default on; event files in
<run>/tensorboard/), `wandb` (off; needs `pip install grue[wandb]`; project from WANDB_PROJECT, default
"grue"; `wandb_mode=offline` writes <run>/wandb/offline-run-*/ for `wandb sync`), `samples` (prompts in
the table; 0: none).
"""
from __future__ import annotations

import importlib.util
import json
import os
import random
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Sequence

from grue.storage.run_layout import read_jsonl, samples_log

TENSORBOARD_DIR = "tensorboard"
SAMPLE_SEED = 0  # which prompts the table shows: one fixed choice per split, whatever the run's seed
COLUMNS = ("id", "prompt", "generation", "reward", "kl")


def _installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


def _wandb_config(cfg: Any) -> dict:
    from omegaconf import OmegaConf

    return OmegaConf.to_container(cfg, resolve=True)


def run_trackers(cfg: Any, run_dir: Path) -> list:
    """The trackers a run logs to (accelerate GeneralTracker objects, not started yet)."""
    from accelerate.tracking import TensorBoardTracker, WandBTracker

    tracking = cfg.tracking
    trackers = []
    if tracking.tensorboard and _installed("tensorboard"):
        trackers.append(TensorBoardTracker(TENSORBOARD_DIR, str(run_dir)))
    if tracking.wandb:
        if not _installed("wandb"):
            from grue.errors import ConfigError

            raise ConfigError("tracking.wandb=true needs the wandb package: pip install 'grue[wandb]' "
                              "(or tracking.wandb=false)")
        trackers.append(WandBTracker(os.environ.get("WANDB_PROJECT", "grue"), mode=tracking.wandb_mode,
                                     dir=str(run_dir), name=Path(run_dir).name, config=_wandb_config(cfg),
                                     settings={"console": "off"}))
    return trackers


def start_tracking(run: Any) -> None:
    """Start the run's trackers (main process); TensorBoard gets the config as text."""
    accelerator, cfg = run.accelerator, run.cfg
    if cfg.tracking.tensorboard and not _installed("tensorboard") and run.main:
        run.say("note: tensorboard is not installed, so this run has no live curves (pip install tensorboard, "
                "or tracking.tensorboard=false)", warning=True)
    if not accelerator.log_with:
        return
    accelerator.init_trackers(TENSORBOARD_DIR)
    from grue.config import to_yaml

    for tracker in accelerator.trackers:
        if tracker.name == "tensorboard":
            tracker.writer.add_text("config", "```\n" + to_yaml(cfg) + "```", global_step=0)


def stop_tracking(accelerator: Any) -> None:
    """Close the trackers (flush TensorBoard, finish the W&B run); safe to call twice or with none."""
    if accelerator is not None and getattr(accelerator, "trackers", None):
        for tracker in accelerator.trackers:  # not end_training(): that also ends the process group
            tracker.finish()
        accelerator.trackers = []


def log_metrics(run: Any, split: str, metrics: dict[str, float], step: int) -> None:
    if run.accelerator is not None and metrics:
        run.accelerator.log({f"eval/{split}/{name}": float(value) for name, value in metrics.items()}, step=step)


def headline_metric(cfg: Any) -> str | None:
    """The metric the progress display shows: the task's first Table 1 task metric it evaluates, else its
    first metric."""
    from tasks import find_task

    spec = find_task(cfg.task)
    evaluated = list(cfg.eval.metrics)
    first = next((m for m in (spec.task_metrics if spec else ()) if m in evaluated), None)
    return first or (evaluated[0] if evaluated else None)


def fixed_sample(samples: Sequence[Any], k: int) -> list[Any]:
    """The same `k` samples of a split every time (their order in the split kept)."""
    picked = sorted(random.Random(SAMPLE_SEED).sample(range(len(samples)), min(k, len(samples))))
    return [samples[i] for i in picked]


def sample_rows(cfg: Any, policy: Any, ref_model: Any, reward_fn: Any, samples: Sequence[Any],
                make_processors: Any = None) -> list[dict[str, Any]]:
    """Sample for `samples` as training does (rollout decoding, a fixed seed, the random stream restored), then
    each generation's reward and summed log-ratio to the reference."""
    import torch

    from grue.policy.stop_strings import cut_all, mask_after_stop, rollout_stops
    from grue.train.rl.kl_temperature import kl_log_probs

    cpu_state = torch.get_rng_state()
    cuda_state = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None
    torch.manual_seed(int(cfg.seed))
    try:
        with torch.no_grad():
            prompts = policy.encode([s.prompt for s in samples])
            rollout = policy.sample(prompts, cfg.rollout, make_processors(prompts) if make_processors else ())
            rollout = mask_after_stop(rollout, policy.tokenizer, policy.eos_id, rollout_stops(cfg))  # as training
            generations = [c.text for c in cut_all(policy.decode(rollout.actions, rollout.valid), rollout_stops(cfg))]
            rollout, ref_logp = kl_log_probs(policy, ref_model, rollout, cfg.kl.temperature)  # as training measures it
            kl = ((rollout.raw_logp - ref_logp) * rollout.valid).sum(-1).tolist()
    finally:
        torch.set_rng_state(cpu_state)
        if cuda_state is not None:
            torch.cuda.set_rng_state_all(cuda_state)
    rewards = [float(r) for r in reward_fn(list(samples), generations)]
    return [{"id": s.id, "prompt": s.prompt, "generation": g, "reward": r, "kl": float(d)}
            for s, g, r, d in zip(samples, generations, rewards, kl)]


def _cell(value: Any) -> str:
    text = f"{value:.4f}" if isinstance(value, float) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    lines += ["| " + " | ".join(_cell(row[c]) for c in COLUMNS) + " |" for row in rows]
    return "\n".join(lines)


def write_sample_log(path: Path, iteration: int, split: str, rows: Sequence[dict[str, Any]]) -> None:
    """logs/samples.jsonl with this evaluation's rows; rows of this or later iterations from an attempt cut
    short are dropped first, so a resumed run never lists an evaluation twice."""
    from grue.storage.atomic import atomic_write_text

    kept = [row for row in read_jsonl(path) if row.get("iteration", 0) < iteration]
    new = [{"iteration": iteration, "split": split, **row} for row in rows]
    atomic_write_text(path, "".join(json.dumps(row) + "\n" for row in [*kept, *new]))


def log_sample_table(accelerator: Any, rows: Sequence[dict[str, Any]], step: int) -> None:
    for tracker in getattr(accelerator, "trackers", ()):
        if tracker.name == "wandb":
            tracker.log_table("samples", columns=list(COLUMNS), data=[[row[c] for c in COLUMNS] for row in rows],
                              step=step)
        elif tracker.name == "tensorboard":
            tracker.log({"samples": markdown_table(rows)}, step=step)


def track_evaluation(run: Any, iteration: int, split: str, metrics: dict[str, float], policy: Any, ref_model: Any,
                     reward_fn: Any, samples: Sequence[Any], trained: Any = None) -> None:
    """An intermediate evaluation: its metrics to the trackers, and the sample table (every process
    generates it, so sharded parameters are gathered alike; the main one writes it)."""
    if run.main:
        log_metrics(run, split, metrics, iteration)
    k = int(run.cfg.tracking.samples)
    if k <= 0 or not samples:
        return
    sharding = getattr(run, "sharding", None)
    models = [policy.model, ref_model, *(getattr(trained, "eval_models", ()) or ())]
    with sharding.gathered(models) if sharding is not None else nullcontext():
        rows = sample_rows(run.cfg, policy, ref_model, reward_fn, fixed_sample(samples, k),
                           getattr(trained, "eval_processors", None))
    if run.main:
        write_sample_log(samples_log(run.dir.path), iteration, split, rows)
        log_sample_table(run.accelerator, rows, iteration)
