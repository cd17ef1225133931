"""DPO (Rafailov et al. 2023): the policy learns from a comparisons file's answers directly, with the
initial policy (a warm-started run: the supervised one) frozen as the reference. No reward model, no
sampling, no critic.

One optimizer step takes `dpo.batch_size` answers in a seeded order: each candidate's summed log-prob
under the policy, from the same one-pass scoring of prompt + continuation that RL uses (`policy.forward`,
for decoder-only and encoder-decoder models alike), and under the frozen reference, scored once before the
first step for every answer the run will read (grue/train/offline/reference.py; the held-out answers
before their first evaluation), then the Plackett-Luce loss of grue/train/offline/dpo_loss.py. A resumed
run scores them again: the same chunks of the same model give the same numbers, so nothing is stored.
With several processes every rank takes its block of each batch and its loss is weighted by its share of
the batch's answers, so the averaged gradient is the whole batch's.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import torch

from grue.policy.masking import action_log_probs
from grue.runtime.console import tenths
from grue.runtime.distributed import average_gradients, contiguous_shard, global_sum, world_of
from grue.train.checkpoint import load_trainable_state, trainable_state
from grue.train.offline.auto_recipe import comparisons_path, is_auto
from grue.train.offline.dpo_loss import choice_stats, dpo_loss
from grue.train.offline.preferences import Preference, read_preferences, widest
from grue.train.offline.reference import reference_matrix, unscored, with_reference


def candidate_log_probs(policy: Any, model: Any, prompts: Sequence[str], texts: Sequence[str],
                        max_length: int) -> torch.Tensor:
    """log pi(text | prompt) summed over the text's tokens, one value per (prompt, text) pair.

    The prompt is encoded as rollouts encode it and the text becomes the actions that follow it: at most
    `max_length` tokens, an encoder-decoder's ended by EOS as its generations end (and as its supervised
    targets are), a decoder-only model's as the text gives them (supervised targets have no EOS either).
    """
    rows = []
    for text in texts:
        ids = policy.tokenizer(text, add_special_tokens=False)["input_ids"]
        rows.append(ids[:max(0, max_length - 1)] + [policy.eos_id] if policy.is_seq2seq else ids[:max_length])
    width = max(1, max(len(r) for r in rows))
    pad = policy.tokenizer.pad_token_id
    actions = torch.tensor([r + [pad] * (width - len(r)) for r in rows], device=policy.device)
    valid = torch.tensor([[1.0] * len(r) + [0.0] * (width - len(r)) for r in rows], device=policy.device)
    logits, _ = policy.forward(model, policy.encode(list(prompts)), actions, valid)
    return (action_log_probs(logits, actions) * valid).sum(-1)


class DPOTrainer:
    # progress lines before the run's bar moves (the reference's scoring); the preference loop sets it to the
    # run's own, so a plugin trainer with the same constructor needs no new argument
    say: Callable[[str], None] = staticmethod(lambda message: None)

    def __init__(self, cfg: Any, policy: Any, ref_model: Any, accelerator: Any, sharding: Any = None) -> None:
        if sharding is not None:
            raise RuntimeError("DPO does not shard parameters (shard=); run it with several processes without "
                               "shard=, or in one process")
        self.cfg, self.policy, self.ref_model, self.accelerator = cfg, policy, ref_model, accelerator
        d = cfg.dpo
        path = comparisons_path(cfg)  # the file named, or the one made for dpo.comparisons=auto
        if not is_auto(d.comparisons):  # a made file's digest is its recipe's; the file is written once
            self._check_unchanged(d.comparisons, d.comparisons_sha256)
        self.train, self.heldout = read_preferences(path, d.heldout)
        if not self.train:
            raise ValueError(f"dpo.comparisons={path}: every answered query is held out "
                             f"(dpo.heldout={d.heldout}); lower dpo.heldout or label more queries")
        self.steps_per_epoch = math.ceil(len(self.train) / d.batch_size)
        self.total_steps = self.steps_per_epoch * d.epochs
        if d.max_steps is not None:
            self.total_steps = min(self.total_steps, d.max_steps)
        params = [p for p in policy.model.parameters() if p.requires_grad]
        if d.optimizer == "rmsprop":  # the paper's (Appendix B), at torch's defaults as the authors' code
            self.optimizer = torch.optim.RMSprop(params, lr=d.learning_rate, weight_decay=d.weight_decay)
        else:
            self.optimizer = torch.optim.AdamW(params, lr=d.learning_rate, weight_decay=d.weight_decay)
        warmup = d.warmup_steps  # linear from 0 over `warmup` steps, then constant (Appendix B)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda s: min(1.0, (s + 1) / (warmup + 1)))
        self.generator = self._order_generator()
        self.rank, self.world = world_of(accelerator)
        self.step = 0
        self._order: list[int] = []
        self._reference_cached = {"train": False, "heldout": False}
        self._prepared_s: Optional[float] = None  # prepare()'s scoring, reported with the next step

    def _order_generator(self) -> torch.Generator:
        return torch.Generator().manual_seed(int(self.cfg.seed))

    @staticmethod
    def _check_unchanged(path: str, digest: Optional[str]) -> None:
        import hashlib

        if digest and hashlib.sha256(Path(path).read_bytes()).hexdigest() != digest:
            raise RuntimeError(f"dpo.comparisons={path} changed after the config was read (its SHA-256 is no "
                               "longer dpo.comparisons_sha256); run the command again to train on the new answers")

    @property
    def epoch_done(self) -> bool:
        """The last step finished an epoch or the run (the held-out answers are scored then)."""
        return self.step > 0 and (self.step % self.steps_per_epoch == 0 or self.step == self.total_steps)

    def _read_by_steps(self) -> list[int]:
        """Indices of the training answers the run's steps read: every one, unless dpo.max_steps stops it
        within its first epoch, which reads the head of the first seeded order (_next_batch's first draw)."""
        if self.total_steps >= self.steps_per_epoch:
            return list(range(len(self.train)))
        first = torch.randperm(len(self.train), generator=self._order_generator()).tolist()
        return first[:self.total_steps * self.cfg.dpo.batch_size]

    def _cache_reference(self, split: str) -> Optional[float]:
        """Score the split's answers under the reference, once per trainer; the seconds it took (None after)."""
        if self._reference_cached[split]:
            return None
        start = time.perf_counter()
        wanted = self._read_by_steps() if split == "train" else range(len(self.heldout))
        # minutes on a CPU for a thousand answers, all before the first step: say how far it has got
        progress = tenths(len(unscored(getattr(self, split), wanted)), self.say,
                          f"scoring the {split} answers under the reference")
        scored = with_reference(getattr(self, split), wanted, lambda batch: self._log_probs(self.ref_model, batch),
                                self.cfg.dpo.batch_size, self.rank, self.world, progress)
        setattr(self, split, scored)
        self._reference_cached[split] = True
        return time.perf_counter() - start

    def prepare(self) -> None:
        """Score the training answers under the reference now: the preference loop calls it before its bar
        opens, so the bar's time left is read from the steps alone. In docs/algorithms.md's equal-labels
        study (its command is there) the scoring took 20-33 minutes a run on one CPU thread; counted as the
        first step, it made the estimate hours too long."""
        self._prepared_s = self._cache_reference("train")

    def _next_batch(self) -> list[Preference]:
        """The next `dpo.batch_size` answers of the epoch's seeded order (the last batch may be short)."""
        if self.step % self.steps_per_epoch == 0:
            self._order = torch.randperm(len(self.train), generator=self.generator).tolist()
        at = (self.step % self.steps_per_epoch) * self.cfg.dpo.batch_size
        return [self.train[i] for i in self._order[at:at + self.cfg.dpo.batch_size]]

    def _log_probs(self, model: Any, batch: Sequence[Preference]) -> tuple[torch.Tensor, torch.Tensor]:
        """[N, k] summed log-probs of every candidate (0 in absent slots) and the [N, k] presence mask."""
        k = widest(batch)
        prompts = [p.prompt for p in batch for _ in p.candidates]
        texts = [c for p in batch for c in p.candidates]
        flat = candidate_log_probs(self.policy, model, prompts, texts, self.cfg.dpo.max_length)
        present = torch.tensor([[i < len(p.candidates) for i in range(k)] for p in batch], device=flat.device)
        out = torch.zeros(present.shape, dtype=flat.dtype, device=flat.device)
        return out.masked_scatter(present, flat), present

    def _reference_log_probs(self, batch: Sequence[Preference], like: torch.Tensor) -> torch.Tensor:
        """[N, k] log pi_ref of the batch's candidates: the cached values (the reference is frozen)."""
        return reference_matrix(batch, like)

    def _loss(self, batch: Sequence[Preference]):
        policy_logps, present = self._log_probs(self.policy.model, batch)
        ref_logps = self._reference_log_probs(batch, policy_logps)
        k = present.shape[1]
        order = torch.tensor([list(p.order) + list(range(len(p.order), k)) for p in batch], device=present.device)
        observed = torch.tensor([p.observed for p in batch], device=present.device)
        return dpo_loss(policy_logps, ref_logps, order, observed, self.cfg.dpo.beta, present), present, order[:, 0]

    def _accumulate(self, mine: Sequence[Preference], scale: float) -> dict[str, float]:
        """Backward of `scale` x the mean loss over `mine`, in parts of dpo.micro_batch_size answers (each part's
        mean weighted by its share), and the step's statistics as means over `mine`."""
        size = self.cfg.dpo.micro_batch_size or len(mine)
        totals: dict[str, float] = {}
        for at in range(0, len(mine), size):
            part = mine[at:at + size]
            share = len(part) / len(mine)
            out, present, chosen = self._loss(part)
            self.accelerator.backward(out.loss * (scale * share) if scale * share != 1.0 else out.loss)
            for key, value in {"loss": out.loss.item(), **choice_stats(out.scores, chosen, present)}.items():
                totals[key] = totals.get(key, 0.0) + value * share
        return totals

    def train_step(self) -> dict[str, float]:
        """One optimizer step; the training log's line for it."""
        from grue.train.rl.trainer import NonFiniteError

        start = time.perf_counter()
        reference_s = self._cache_reference("train")  # the first step of a run (or of a resumed one) only
        if self._prepared_s is not None:  # scored by prepare(): it counts in this step's seconds all the same
            start, reference_s, self._prepared_s = start - self._prepared_s, self._prepared_s, None
        d = self.cfg.dpo
        batch = self._next_batch()
        mine = contiguous_shard(batch, self.rank, self.world)
        params = [p for g in self.optimizer.param_groups for p in g["params"]]
        self.optimizer.zero_grad(set_to_none=True)
        stats = {"loss": 0.0, "accuracy": 0.0, "reward_chosen": 0.0, "reward_others": 0.0, "margin": 0.0}
        if mine:
            stats = self._accumulate(mine, len(mine) * self.world / len(batch) if self.world > 1 else 1.0)
        sums = global_sum([v * len(mine) for v in stats.values()], self.world)
        stats = {key: total / len(batch) for key, total in zip(stats, sums)}
        if not math.isfinite(stats["loss"]):
            raise NonFiniteError(f"DPO step {self.step + 1}: loss is {stats['loss']}", self.step + 1, "DPO loss")
        average_gradients(params, self.world)
        grad_norm = float(torch.nn.utils.clip_grad_norm_(params, d.max_grad_norm))
        lr = self.scheduler.get_last_lr()[0]
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        # `seconds` (results.json's training cost) includes the reference's scoring; `reference_seconds` says how much
        line = {"step": self.step, "epoch": (self.step - 1) // self.steps_per_epoch + 1,
                "comparisons": len(batch), **stats, "grad_norm": grad_norm, "learning_rate": lr,
                "seconds": time.perf_counter() - start}
        return line if reference_s is None else {**line, "reference_seconds": reference_s}

    @torch.no_grad()
    def heldout_stats(self) -> dict[str, float]:
        """The implicit reward on the held-out answers (every process scores them all; one batch at a time)."""
        if not self.heldout:
            return {}
        self._cache_reference("heldout")
        totals, size = {}, self.cfg.dpo.batch_size
        for at in range(0, len(self.heldout), size):
            batch = self.heldout[at:at + size]
            out, present, chosen = self._loss(batch)
            for key, value in {"loss": out.loss.item(), **choice_stats(out.scores, chosen, present)}.items():
                totals[key] = totals.get(key, 0.0) + value * len(batch)
        return {"heldout_comparisons": len(self.heldout),
                **{f"heldout_{key}": value / len(self.heldout) for key, value in totals.items()}}

    # -- resume --------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        # under LoRA only the adapters: the frozen base is read again from where the run started
        return {"policy": trainable_state(self.policy.model), "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(), "step": self.step, "order": list(self._order),
                "generator": self.generator.get_state()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        load_trainable_state(self.policy.model, state["policy"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.step, self._order = state["step"], list(state["order"])
        self.generator.set_state(state["generator"])
