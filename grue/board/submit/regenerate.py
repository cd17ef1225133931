"""Tie a seed's generations to its weights: regenerate a random sample of prompts and compare token for token.

Re-scoring proves the numbers follow from the generations; only regeneration proves the generations follow
from a model. grue's evaluation decoder keys each sample's noise by (the run's seed, the sample's id)
(grue/run/evaluate.py `generate`, grue/policy/decode.py), so one prompt decoded alone gives the same tokens
as it did inside the whole split: a board holding the weights can check any prompt it likes. `add` picks
the prompts at random (not from anything in the bundle, so a submitter cannot know which), decodes them
with the bundle's model under the run's own generation config and the board's own prompts, and refuses the
bundle when any differs, naming the sample and the first differing token.

What cannot be tied says why, on the row: a bundle without weights ("generations not tied to a model"),
an algorithm that decodes through more than its saved policy (best-of-n's own decoder, NLPO's mask at
evaluation), or a decoder whose noise is not keyed per sample (`generation.decoder=generate`, beams).
Regeneration on another kind of device than the run's may differ in a token where two logits tie to
float precision: give `add device=` the run's kind of device.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Optional, Sequence

from grue.storage.run_layout import predictions_file, predictions_name

SAMPLE_SIZE = 4  # prompts regenerated per reported split


def why_not_reproducible(cfg: Any) -> Optional[str]:
    """Why this run's evaluation generations cannot be regenerated from its saved policy alone, or None."""
    from grue.policy.base import uses_grue_decoder
    from grue.train.registry import find_algorithm

    if not uses_grue_decoder(cfg.generation):
        return "generation.decoder is not grue's keyed decoder, so a prompt decoded alone need not repeat"
    algo = find_algorithm(cfg.algo)
    if algo is not None and getattr(algo, "evaluation", None):
        return f"{cfg.algo} evaluates through its own decoder, not the saved policy alone"
    nlpo = cfg.get("nlpo") if hasattr(cfg, "get") else None
    if algo is not None and algo.trains == "rl" and nlpo is not None and nlpo.get("mask_at_eval"):
        from grue.train.rl.trainer import RLTrainer

        if algo.trainer_class().evaluation_processors is not RLTrainer.evaluation_processors:
            return f"{cfg.algo} evaluates through its mask model, which a bundle does not carry"
    return None


def pick(ids: Sequence[str], k: int, rng: random.Random) -> list[int]:
    """Positions of `k` samples (all of them when the split has fewer), in split order."""
    return sorted(rng.sample(range(len(ids)), min(k, len(ids))))


def first_difference(tokenize: Any, expected: str, got: str) -> str:
    """Where two texts part, in tokens: "token 3: ' good' vs ' bad'"."""
    a, b = tokenize(expected), tokenize(got)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"token {i}: {x!r} vs {y!r}"
    return f"token {min(len(a), len(b))}: {len(a)} vs {len(b)} tokens"


def regeneration_problems(seed: Any, cfg: Any, splits: dict[str, Any], model_dir: Optional[Path], device: str,
                          k: int = SAMPLE_SIZE, rng: Optional[random.Random] = None) -> list[str]:
    """Hook (verify.py, per seed once its splits are re-scored): regenerate `k` prompts per split from the
    bundle's model; records on the seed what was tied (or why nothing was), returns the mismatches."""
    from grue.board.submit.claims import GENERATIONS, NOT_TIED

    if model_dir is None:
        seed.claims[GENERATIONS] = NOT_TIED
        return []
    why = why_not_reproducible(cfg)
    if why:
        seed.claims[GENERATIONS] = f"{NOT_TIED} ({why})"
        return []
    from grue.commands.predictions import read_predictions
    from grue.policy.load import load_policy
    from grue.policy.stop_strings import cut_all, eval_stops
    from grue.run.evaluate import generate

    rng = rng or random.SystemRandom()
    policy = load_policy(cfg, str(model_dir), device)
    checked, problems = 0, []
    for split in sorted(seed.doc.get("metrics") or {}):
        samples = list(splits[split])
        path = predictions_file(seed.path, split)
        claimed = {row["id"]: row["generation"] for row in read_predictions(path, {s.id for s in samples})}
        chosen = [samples[i] for i in pick([s.id for s in samples], k, rng)]
        texts = [c.text for c in cut_all(generate(policy, chosen, cfg.generation, cfg.eval.batch_size,
                                                  seed=int(cfg.seed)), eval_stops(cfg))]  # as evaluation saved them
        for sample, text in zip(chosen, texts):
            checked += 1
            if text != claimed[sample.id]:
                tokenize = lambda t: policy.tokenizer.convert_ids_to_tokens(policy.tokenizer(t)["input_ids"])  # noqa: E731
                problems.append(f"{seed.run}/{predictions_name(split)}: the generation of {sample.id!r} is not what "
                                f"the bundle's model generates for it ({first_difference(tokenize, claimed[sample.id], text)}): "
                                "the generations do not come from these weights")
                break
    seed.claims[GENERATIONS] = (f"generations tied to the bundle's weights: {checked} prompt(s) regenerated token "
                                "for token" if not problems else NOT_TIED)
    return problems
