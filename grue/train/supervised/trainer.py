"""Supervised fine-tuning (the paper's Supervised baseline and the warm start of Supervised+RL).

Teacher forcing with the loss on target tokens only, AdamW and the task's learning-rate schedule
(HF schedulers: constant, cosine, constant with warm-up). A decoder-only model reads prompt + target
as one sequence; an encoder-decoder reads the prompt in its encoder (encoded exactly as in RL) and
the target, ended by EOS, in its decoder. One trainer serves both; only the batch differs.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import torch
from transformers import get_scheduler

from grue.train.checkpoint import SHARDS, check_checkpoint_layout, load_trainable_state, trainable_state
from grue.data.sample import Sample
from grue.policy.batch import position_ids
from grue.runtime.distributed import average_gradients, contiguous_shard, global_sum, world_of
from grue.runtime.sharding import Sharding


def training_pairs(task: Any, train: Sequence[Sample]) -> list[tuple[str, str]]:
    keep = task.supervised_filter or (lambda s: True)
    if task.supervised_all_references:
        return [(s.prompt, ref) for s in train if keep(s) for ref in s.references]
    target = task.supervised_target or (lambda s: s.references[0])
    return [(s.prompt, target(s)) for s in train if keep(s)]


def cut(ids: list[int], limit: int, side: str) -> list[int]:
    """At most `limit` tokens, dropping them from `side` ("left" keeps the end, as prompts are cut in RL)."""
    if len(ids) <= limit:
        return ids
    return ids[len(ids) - limit:] if side == "left" else ids[:limit]


def causal_batch(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_prompt: int, max_target: int,
                 device: str) -> dict[str, torch.Tensor]:
    """Left-padded prompt+target ids with labels -100 on prompt and padding.

    Prompt and target have their own limits: the prompt is cut exactly as RL and evaluation cut it
    (`max_prompt` tokens on the tokenizer's truncation side), the target keeps its first `max_target`
    tokens. One cap on both together would leave long prompts (half an IMDB review) no target at all.
    """
    rows, labels = [], []
    for prompt, target in pairs:
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"] if prompt else []
        p = cut(p, max_prompt, tokenizer.truncation_side)
        t = tokenizer(target, add_special_tokens=False)["input_ids"][:max_target]
        rows.append(p + t)
        labels.append([-100] * len(p) + t)
    width = max(len(r) for r in rows)
    pad = tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=device)
    lab = torch.tensor([[-100] * (width - len(r)) + r for r in labels], device=device)
    attn = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=device)
    return {"input_ids": ids, "attention_mask": attn, "position_ids": position_ids(attn), "labels": lab}


def seq2seq_batch(policy: Any, pairs: Sequence[tuple[str, str]], max_target: int) -> dict[str, torch.Tensor]:
    """Encoder inputs from the policy's own prompt encoding; labels = target + EOS (at most
    `max_target` tokens), right-padded with -100. The model shifts labels right behind its decoder
    start token, which is the [start] + actions[:-1] input the RL forward pass uses."""
    prompts = policy.encode([p for p, _ in pairs])
    targets = []
    for _, target in pairs:
        ids = policy.tokenizer(target, add_special_tokens=False)["input_ids"][:max(0, max_target - 1)]
        targets.append(ids + [policy.eos_id])
    width = max(len(t) for t in targets)
    labels = torch.tensor([t + [-100] * (width - len(t)) for t in targets], device=policy.device)
    return {"input_ids": prompts.input_ids, "attention_mask": prompts.attention_mask, "labels": labels}


def target_tokens(batch: dict[str, torch.Tensor], causal: bool) -> int:
    """Tokens the loss averages over: labels not -100 (a causal LM never predicts its first position)."""
    labels = batch["labels"][:, 1:] if causal else batch["labels"]
    return int((labels != -100).sum())


def supervised_batch(policy: Any, pairs: Sequence[tuple[str, str]], max_length: int) -> dict[str, torch.Tensor]:
    """Model keyword arguments for one teacher-forced step; `max_length` caps the target, the prompt is
    cut as the policy cuts it everywhere else (`model.max_prompt_length`, `model.truncation_side`)."""
    if policy.is_seq2seq:
        return seq2seq_batch(policy, pairs, max_length)
    return causal_batch(policy.tokenizer, pairs, policy.max_prompt_length, max_length, policy.device)


def _zero_loss(model: Any, batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """A loss of exactly zero that still runs the model forward and backward (its gradients are zeros)."""
    return model(**batch).logits.sum() * 0.0  # labels kept: an encoder-decoder makes its decoder inputs from them


class SupervisedTrainer:
    def __init__(self, cfg: Any, policy: Any, pairs: Sequence[tuple[str, str]], accelerator: Any,
                 sharding: Optional[Sharding] = None) -> None:
        self.cfg, self.policy, self.pairs, self.accelerator = cfg, policy, list(pairs), accelerator
        self.sharding = sharding
        if sharding is not None:  # before the optimizer sees the parameters
            sharding.shard(policy.model)
        sup = cfg.supervised
        self.steps_per_epoch = max(1, math.ceil(len(self.pairs) / sup.batch_size))
        total = self.steps_per_epoch * sup.epochs
        # The trainable parameters only: a LoRA policy's frozen base must not be in the optimizer, since with
        # several processes gradient averaging gives every parameter a (zero) gradient, and AdamW's decoupled
        # weight decay would then shrink the base that checkpoints do not keep.
        trainable = [p for p in policy.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(trainable, lr=sup.learning_rate, weight_decay=sup.weight_decay)
        self.scheduler = get_scheduler(sup.lr_scheduler, self.optimizer,
                                       num_warmup_steps=int(sup.warmup_ratio * total), num_training_steps=total)
        self.generator = torch.Generator().manual_seed(int(cfg.seed))
        self.epoch = 0
        self.target_tokens = 0  # target tokens the last epoch trained on (all processes): the training log's count

    def train_epoch(self, on_step: Callable[[float], None] | None = None) -> float:
        """One pass over the pairs in a seeded order; dropout stays off (eval mode) as in RL.

        With several processes every rank draws the same order and takes its consecutive block of each
        batch; each rank's token-mean loss is weighted by its share of the batch's target tokens, so
        the averaged gradient is the gradient of the whole batch's token mean, as with one process.
        """
        sup, model = self.cfg.supervised, self.policy.model
        rank, world = world_of(self.accelerator)
        params = [p for g in self.optimizer.param_groups for p in g["params"]]
        order = torch.randperm(len(self.pairs), generator=self.generator).tolist()
        total, trained = 0.0, 0
        for start in range(0, len(order), sup.batch_size):
            batch_pairs = [self.pairs[i] for i in order[start:start + sup.batch_size]]
            pairs = contiguous_shard(batch_pairs, rank, world)
            loss, tokens = None, 0
            if pairs:
                batch = supervised_batch(self.policy, pairs, sup.max_length)
                tokens = target_tokens(batch, causal=not self.policy.is_seq2seq)
                loss = model(**batch).loss if tokens else None
            if self.sharding is not None and loss is None:
                # a sharded forward and backward are collectives: a rank with nothing to learn from joins
                # them with a zero-weighted pass
                loss = _zero_loss(model, supervised_batch(self.policy, batch_pairs[:1], sup.max_length))
            all_tokens, loss_sum = global_sum([tokens, loss.item() * tokens if loss is not None else 0.0], world)
            batch_loss = loss_sum / max(all_tokens, 1.0) if world > 1 else (loss.item() if loss is not None else 0.0)
            if not math.isfinite(batch_loss):
                from grue.train.rl.trainer import NonFiniteError

                raise NonFiniteError(f"supervised epoch {self.epoch + 1}: loss is {batch_loss}; the run stopped "
                                     f"and the last epoch's checkpoint is kept", self.epoch + 1, "supervised loss")
            self.optimizer.zero_grad(set_to_none=True)
            if loss is not None:
                self.accelerator.backward(loss * (tokens * world / max(all_tokens, 1.0)) if world > 1 else loss)
            average_gradients(params, world)
            self.optimizer.step()
            self.scheduler.step()
            total += batch_loss
            trained += int(all_tokens)
            if on_step:
                on_step(batch_loss)
        self.epoch += 1
        self.target_tokens = trained
        return total / self.steps_per_epoch

    def state_dict(self) -> dict[str, Any]:
        """Everything to resume from; a sharded run's weights and optimizer state go to `write_shards`. Of a
        LoRA policy only the adapters are kept (the frozen base is read again from where the run started)."""
        if self.sharding is None:
            weights = {"policy": trainable_state(self.policy.model), "optimizer": self.optimizer.state_dict()}
        else:
            weights = {"sharded": True}
        return {**weights, "scheduler": self.scheduler.state_dict(), "epoch": self.epoch,
                "generator": self.generator.get_state()}

    def write_shards(self, directory: Path) -> None:
        self.sharding.save_shards(self.policy.model, self.optimizer, directory)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        check_checkpoint_layout(state, self.sharding is not None)
        if self.sharding is None:
            load_trainable_state(self.policy.model, state["policy"])
            self.optimizer.load_state_dict(state["optimizer"])
        else:
            self.sharding.load_shards(self.policy.model, self.optimizer, Path(state["checkpoint_dir"]) / SHARDS)
        self.scheduler.load_state_dict(state["scheduler"])
        self.epoch = state["epoch"]
        self.generator.set_state(state["generator"])
