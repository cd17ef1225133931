"""The `dpo` config group: what a DPO run reads, and the checks of its comparisons file.

Kept apart from the trainer so that building a config imports no model code. Defaults are the DPO paper's
(Rafailov et al. 2023, Appendix B: "beta = 0.1, batch size of 64 and the RMSprop optimizer with a learning
rate of 1e-6 ... linearly warm up the learning rate from 0 to 1e-6 over 150 steps"); the authors' released
config adds gradient clipping at norm 10 and one epoch. docs/algorithms.md explains every field.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Optional

from grue.config.constraints import NON_NEGATIVE, POSITIVE, RULE_KEY, OneOf, Range, Registered
from grue.config.identity import DIGEST_OF_RECIPE, FILE_DIGEST, HASHED_WHEN_SET
from grue.config.schema import rule
from grue.train.offline.auto_recipe import AUTO, DEFAULT_QUERIES

OPTIMIZERS = ("rmsprop", "adamw")


def check_comparisons_file(path: str) -> None:
    """A comparisons file DPO can train on: it exists, every line is a valid record
    (docs/learned_rewards.md) and at least one query is answered. KeyError with one line otherwise. `auto`
    names the file grue makes for the run (grue/train/offline/auto_recipe.py), checked when it is made."""
    import os

    if path == AUTO:
        return
    from grue.rewards.learned.comparisons import latest_answers, read_comparisons

    if not os.path.isfile(path):
        raise KeyError(f"no comparisons file at {path} (make one with `grue label queries` and `grue label mock`, "
                       f"docs/learned_rewards.md, or let the run make one: dpo.comparisons={AUTO})")
    try:
        records = read_comparisons(path, required=True)
    except ValueError as err:  # ComparisonsFormatError and the reader's InputError: one line, by line number
        raise KeyError(" ".join(str(err).split())) from None
    if not latest_answers(records):
        raise KeyError(f"{path} holds no answered comparison ({len(records)} record(s), none with a labeler's "
                       "choice): label it first, e.g. `grue label mock`")


def check_labeler(name: str) -> None:
    """dpo.labeler: a registered reward that scores one generation at a time (as `grue label mock` asks)."""
    from grue.config.cross_fields import per_sample_problem
    from grue.rewards.registry import check_reward

    check_reward(name)
    problem = per_sample_problem("dpo.labeler", name)
    if problem:
        raise KeyError(problem.split(": ", 1)[1])


@dataclass
class DPOConfig:
    """Direct Preference Optimization (Rafailov et al. 2023) from a comparisons file."""

    # The comparisons file (docs/learned_rewards.md): every labeler's latest answer is one training example.
    # `auto`: the run makes it (once, into the asset cache) from dpo.queries queries of its initial policy,
    # answered by dpo.labeler as a mock labeler (grue/train/offline/auto_recipe.py, auto_comparisons.py).
    comparisons: Optional[str] = field(default=None, metadata={RULE_KEY: Registered(check_comparisons_file)})
    # Its SHA-256, filled in from the file when the config is loaded (never by hand): comparisons files are
    # appended to, and a file with more answers is a new setting, not the finished run it used to be. With
    # `auto`, the SHA-256 of the made file's recipe (its recipe.json), since the file may not exist yet.
    comparisons_sha256: Optional[str] = field(default=None, metadata={
        FILE_DIGEST: "dpo.comparisons", DIGEST_OF_RECIPE: "grue.train.offline.auto_recipe:recipe_sha256"})
    # With comparisons=auto only: the reward that plays the labeler (unset: the task's own, reward.name) and
    # how many queries it answers. Hashed only when set, so runs on hand-made files keep their hash.
    labeler: Optional[str] = field(default=None, metadata={RULE_KEY: Registered(check_labeler),
                                                           HASHED_WHEN_SET: True})
    queries: int = field(default=DEFAULT_QUERIES, metadata={RULE_KEY: POSITIVE, HASHED_WHEN_SET: True})
    beta: float = rule(0.1, POSITIVE)               # Appendix B: beta = 0.1 (0.5 for TL;DR summaries)
    learning_rate: float = rule(1e-6, POSITIVE)     # Appendix B: 1e-6 (the released code's default: 5e-7)
    optimizer: str = rule("rmsprop", OneOf(OPTIMIZERS))  # Appendix B: RMSprop
    warmup_steps: int = rule(150, NON_NEGATIVE)     # Appendix B: linear warm-up from 0 over 150 steps
    batch_size: int = rule(64, POSITIVE)            # Appendix B: 64 (here: answered comparisons per step)
    epochs: int = rule(1, POSITIVE)                 # the released code's n_epochs: 1
    # Optimizer steps in all, when fewer than the epochs': a run stopped within its first epoch trains on the
    # head of its seeded order (max_steps x batch_size answers). Unset: the epochs decide (runs from before it
    # existed keep their hash).
    max_steps: Optional[int] = field(default=None, metadata={RULE_KEY: POSITIVE, HASHED_WHEN_SET: True})
    max_grad_norm: float = rule(10.0, POSITIVE)     # the released code's max_grad_norm: 10.0
    weight_decay: float = rule(0.0, NON_NEGATIVE)
    # Tokens of a candidate scored (an encoder-decoder's EOS included); the prompt is cut as in RL. By default
    # the task's rollout length, which the candidates were sampled with.
    max_length: int = rule("${rollout.max_new_tokens}", POSITIVE)
    save_every: int = rule(50, POSITIVE)            # optimizer steps between checkpoints (not part of the hash)
    # Answers scored per forward and backward pass within one step (unset: the step's whole batch at once). The
    # step's gradient is the same mean, summed in parts, so it is memory, not a result (not part of the hash):
    # a batch of 16 answers of 4 CNN/DM candidates is 64 sequences of 208 tokens, whose full-vocabulary logits
    # and activations outgrow a 24 GiB machine.
    micro_batch_size: Optional[int] = rule(None, POSITIVE)
    # Share of the queries held out (chosen by a hash of the query id, exactly as a reward model's held-out
    # queries: grue/rewards/learned/training.py), on which the implicit reward's accuracy is reported.
    heldout: float = rule(0.1, Range(low=0, high=1, high_open=True))


def preflight(cfg: Any) -> list[str]:
    """What a DPO run cannot start without: its comparisons file, with answers for this task (or auto)."""
    path = cfg.dpo.comparisons
    if not path:
        return [f"algo={cfg.algo} trains on a comparisons file: set dpo.comparisons=<file> (docs/algorithms.md; "
                f"`grue label queries` and `grue label mock` make one), or dpo.comparisons={AUTO} to have the run "
                "make one with the task's reward as labeler"]
    if path == AUTO:
        return []
    defaults = {f.name: f.default for f in fields(DPOConfig)}
    unread = [f"dpo.{key}" for key in ("labeler", "queries") if cfg.dpo[key] != defaults[key]]
    if unread:  # set by hand, they would move the hash while changing nothing
        return [f"{', '.join(unread)} only say(s) how dpo.comparisons={AUTO} makes its file; with the file "
                f"{path} it would change nothing: drop it, or set dpo.comparisons={AUTO}"]
    from grue.rewards.learned.comparisons import latest_answers, read_comparisons

    tasks = sorted({a.task for a in latest_answers(read_comparisons(path)) if a.task and a.task != cfg.task})
    if tasks:
        return [f"dpo.comparisons={path} holds answers for task {', '.join(tasks)}, not {cfg.task}"]
    return []
