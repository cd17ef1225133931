"""Reward-model learning curve on real text: held-out 4-way accuracy against the label budget.

IMDB mini's sentiment classifier is the mock labeler; each query is a train-split prompt with the
real continuations of 4 random train reviews as candidates (real text, not policy samples: this
measures how fast the reward model learns the oracle's ranking, without generation). One fixed
held-out set of queries for every budget; budgets are nested (the first N training queries).

    python scripts/reward_model_curve.py [budgets=100,400,1000] [heldout=200] [lr=5e-5] [backbone=packaged:minilm]
"""
from __future__ import annotations

import json
import random
import sys
import time

import torch


def main(budgets: list[int], heldout: int, lr: float, backbone: str) -> None:
    from grue.config import load_config
    from grue.rewards.learned.accuracy import candidate_auc, choice_accuracy
    from grue.rewards.learned.comparisons import Candidate, Comparison
    from grue.rewards.learned.labelers import MockLabeler
    from grue.rewards.learned.model import RewardModel
    from grue.rewards.learned.training import TrainingSettings, heldout_scores, train_reward_model
    from grue.rewards.registry import build_named_reward
    from tasks import get_task

    cfg = load_config(["task=imdb", "profile=mini"])
    train = get_task("imdb").loader(cfg)["train"]
    rng = random.Random(0)
    queries = []
    for i in range(max(budgets) + heldout):
        sample = train[i % len(train)]
        others = rng.sample(train, 4)
        queries.append(Comparison(f"curve-{i:05d}", sample.prompt,
                                  tuple(Candidate(o.meta["continuation"], "real text") for o in others),
                                  task="imdb", sample_id=sample.id))
    labeler = MockLabeler(build_named_reward(cfg, "sentiment"))
    started = time.time()
    answers = labeler.label(queries, {s.id: s for s in train})
    print(f"labelled {len(answers)} queries in {time.time() - started:.0f} s", flush=True)
    held, pool = answers[:heldout], answers[heldout:]
    rows = []
    for budget in budgets:
        started = time.time()
        model = RewardModel.from_backbone(backbone, max_length=64, seed=0)
        report = train_reward_model(model, pool[:budget], TrainingSettings(learning_rate=lr, heldout_fraction=0.0))
        scores = heldout_scores(model, held)
        chosen = [a.chosen for a in held]
        rows.append({"labels": budget, "heldout": heldout, "accuracy": choice_accuracy(scores, chosen),
                     "auc": candidate_auc(scores, chosen), "final_loss": report.final_train_loss,
                     "train_s": round(time.time() - started)})
        print(json.dumps(rows[-1]), flush=True)


if __name__ == "__main__":
    opts = dict(a.split("=", 1) for a in sys.argv[1:])
    torch.set_num_threads(2)
    main([int(b) for b in opts.get("budgets", "100,400,1000").split(",")], int(opts.get("heldout", 200)),
         float(opts.get("lr", 5e-5)), opts.get("backbone", "packaged:minilm"))
