"""Train a reward model on comparisons: one epoch of Adam, dropout off (spec §7.2), then normalise.

Comparisons are split into training and held-out queries by a hash of the query id, so a query
stays on its side whatever the budget, and every answer of one query lands on the same side. The
training curve (loss and batch accuracy per step) and the held-out accuracy / ROC AUC are returned
and written beside the weights.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import torch

from grue.rewards.learned.accuracy import candidate_auc, choice_accuracy
from grue.rewards.learned.comparisons import Comparison
from grue.rewards.learned.loss import OBJECTIVES
from grue.rewards.learned.model import RewardModel

CURVE_FILE = "training_curve.jsonl"


@dataclass(frozen=True)
class TrainingSettings:
    # Ziegler's reward-model settings (spec §7.2): lr 1.77e-5, batch 8 for continuations (32 for
    # summaries), a single epoch. Held-out share: Ziegler reports none; the paper's preference model
    # keeps 20 % for test (spec §2.2), 10 % here leaves more labels to learn from.
    learning_rate: float = 1.77e-5
    batch_size: int = 8
    heldout_fraction: float = 0.1
    objective: str = "comparison"  # comparison (k-way softmax) | classifier (binary, the CommonGen preference model)
    seed: int = 0


@dataclass
class TrainingReport:
    train_comparisons: int
    heldout_comparisons: int
    heldout_accuracy: float                 # the chosen candidate scored highest
    heldout_auc: float                      # ROC AUC of chosen vs. not chosen over all candidates
    final_train_loss: float
    curve: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "curve"}


def is_heldout(query_id: str, fraction: float) -> bool:
    digest = hashlib.sha256(query_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < fraction


def split_heldout(answers: Sequence[Comparison], fraction: float) -> tuple[list[Comparison], list[Comparison]]:
    train = [a for a in answers if not is_heldout(a.query_id, fraction)]
    held = [a for a in answers if is_heldout(a.query_id, fraction)]
    return train, held


def _batch_scores(model: RewardModel, batch: Sequence[Comparison]) -> torch.Tensor:
    k = batch[0].k
    prompts = [c.prompt for c in batch for _ in range(k)]
    texts = [cand.text for c in batch for cand in c.candidates]
    return model.raw(prompts, texts).view(len(batch), k)


def _check_one_k(answers: Sequence[Comparison]) -> None:
    ks = sorted({a.k for a in answers})
    if len(ks) > 1:
        raise ValueError(f"comparisons mix {ks} candidates per query; train one reward model per k")


def heldout_scores(model: RewardModel, held: Sequence[Comparison], batch_size: int = 32) -> list[list[float]]:
    prompts = [c.prompt for c in held for _ in c.candidates]
    texts = [cand.text for c in held for cand in c.candidates]
    flat = model.raw_scores(prompts, texts, batch_size)
    out, at = [], 0
    for c in held:
        out.append(flat[at:at + c.k])
        at += c.k
    return out


def train_reward_model(model: RewardModel, answers: Sequence[Comparison], settings: TrainingSettings,
                       progress: Optional[Callable[[dict], None]] = None) -> TrainingReport:
    """One epoch over the training comparisons in a seeded order; the model stays in eval mode
    (dropout off) while its gradients flow. Gradients are switched on here because a batched
    schedule retrains from inside the RL rollout, which runs without them."""
    with torch.inference_mode(False), torch.enable_grad():
        return _train(model, answers, settings, progress)


def _train(model: RewardModel, answers: Sequence[Comparison], settings: TrainingSettings,
           progress: Optional[Callable[[dict], None]]) -> TrainingReport:
    if settings.objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {sorted(OBJECTIVES)}, not {settings.objective!r}")
    _check_one_k(answers)
    train, held = split_heldout(answers, settings.heldout_fraction)
    if not train:
        raise ValueError(f"no comparisons to train on ({len(answers)} answered, all held out)")
    loss_fn = OBJECTIVES[settings.objective]
    order = list(train)
    random.Random(settings.seed).shuffle(order)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=settings.learning_rate)
    model.eval()
    curve: list[dict] = []
    seen = 0
    for start in range(0, len(order), settings.batch_size):
        batch = order[start:start + settings.batch_size]
        chosen = torch.tensor([c.chosen for c in batch], device=model.device)
        scores = _batch_scores(model, batch)
        loss = loss_fn(scores, chosen)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        seen += len(batch)
        point = {"step": len(curve) + 1, "comparisons": seen, "loss": loss.item(),
                 "accuracy": (scores.argmax(-1) == chosen).float().mean().item()}
        curve.append(point)
        if progress is not None:
            progress(point)
    scores = heldout_scores(model, held) if held else []
    chosen = [c.chosen for c in held]
    return TrainingReport(len(train), len(held), choice_accuracy(scores, chosen) if held else float("nan"),
                          candidate_auc(scores, chosen) if held else float("nan"), curve[-1]["loss"], curve)


def normalisation_texts(queries: Sequence[Comparison]) -> tuple[list[str], list[str]]:
    """(prompts, continuations) to normalise over: every candidate of every distinct query, i.e.
    x ~ D and y from the model the queries were sampled from (rho, for offline labels)."""
    distinct = list({q.query_id: q for q in queries}.values())
    return [q.prompt for q in distinct for _ in q.candidates], [c.text for q in distinct for c in q.candidates]


def fit_reward_model(model: RewardModel, answers: Sequence[Comparison], settings: TrainingSettings, out_dir: Path,
                     normalise_over: Sequence[Comparison],
                     progress: Optional[Callable[[dict], None]] = None) -> TrainingReport:
    """Train a fresh `model` (new head on its backbone) for one epoch, normalise it over
    `normalise_over`'s candidates, and save it to `out_dir` with its training facts and curve. A
    preference classifier is not normalised: its logit must stay a log-odds."""
    report = train_reward_model(model, answers, settings, progress)
    if settings.objective == "comparison":
        model.normalise(model.raw_scores(*normalisation_texts(normalise_over)))
    model.info = {"objective": settings.objective, "settings": asdict(settings), **report.summary()}
    model.save(out_dir, {CURVE_FILE: report.curve})
    return report
