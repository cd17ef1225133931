"""Build the policy, frozen reference, masking model and critic a run needs from its config.

With `model.lora.rank > 0` the policy trains LoRA adapters on a frozen base, and the reference and
masking model share that base instead of copying it (grue.policy.lora). `model.gradient_checkpointing`
recomputes each transformer block's activations in the backward pass instead of keeping them.
"""
from __future__ import annotations

import copy
import types
from pathlib import Path
from typing import Any

from grue.assets import resolve_model
from grue.policy.base import LMPolicy
from grue.policy.causal import CausalPolicy
from grue.policy.seq2seq import Seq2SeqPolicy
from grue.policy.value import SeparateValue, SharedValue


def _quiet_transformers() -> None:
    import warnings

    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    # EncoderDecoderModel (packaged:minilm2minilm) warns at every loss computed from labels that models
    # fine-tuned before transformers 4.12 may train differently: history, nothing a run can act on.
    warnings.filterwarnings("ignore", message="Version v4.12.0 introduces a better way", category=FutureWarning)


def training_dtype(name: str) -> Any:
    """`model.dtype` as from_pretrained's argument. transformers 5 loads a checkpoint in the dtype it was
    saved in, so a bf16 checkpoint would train in pure bf16 (AdamW updates at lr 1e-6 mostly round
    away); float32, the default, is how the reference code trains."""
    import torch

    return "auto" if name == "checkpoint" else getattr(torch, name)


def load_policy(cfg: Any, model_ref: str, device: str) -> LMPolicy:
    """The trainable policy of `model.kind`; dropout stays off for its whole life (eval mode; spec 3.9).

    `model_ref` may also be a LoRA adapter directory (peft's adapter_config.json, e.g. a run's
    model/adapter): its base is loaded and the adapter merged in. With `model.lora.rank > 0` fresh
    adapters are added on top (B = 0: the loaded model's function is unchanged)."""
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    from grue.policy import lora

    kinds = {"causal": (AutoModelForCausalLM, CausalPolicy), "seq2seq": (AutoModelForSeq2SeqLM, Seq2SeqPolicy)}
    if cfg.model.kind not in kinds:
        raise ValueError(f"model.kind must be one of {sorted(kinds)}, not {cfg.model.kind!r}")
    settings = lora.lora_settings(cfg)
    if settings is not None and getattr(cfg, "shard", None) and int(getattr(cfg, "num_processes", 1) or 1) > 1:
        raise ValueError(f"model.lora with shard={cfg.shard} is not supported: grue's sharded checkpoints and "
                         "gathered generation do not handle adapters on a shared frozen base yet. Run LoRA data "
                         "parallel (accelerate=ddp): each process holds the base once and only the adapters "
                         "are trained and averaged")
    auto_model, policy_class = kinds[cfg.model.kind]
    _quiet_transformers()
    adapter_base = lora.adapter_base(Path(model_ref)) if Path(model_ref).is_dir() else None
    path = resolve_model(adapter_base or model_ref, task=cfg.task)
    tokenizer_path = model_ref if adapter_base and (Path(model_ref) / "tokenizer_config.json").is_file() else path
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_path)
    model = auto_model.from_pretrained(path, dtype=training_dtype(cfg.model.dtype))
    if adapter_base:
        model = lora.merge_adapter_into(model, Path(model_ref))
    model = model.to(device).eval()
    policy = policy_class(model, tokenizer, cfg.model.max_prompt_length, cfg.model.padding_side,
                          cfg.model.truncation_side, device)
    if settings is not None:  # after the policy is made: it reduces the model's generation config first
        lora.add_adapters(policy.model, settings, base_ref=str(model_ref))
    if getattr(cfg.model, "gradient_checkpointing", False):
        checkpoint_blocks(policy.model)
    return policy


def frozen_copy(model: Any) -> Any:
    """A frozen copy: the NLPO masking model pi_psi (and, without LoRA, the reference pi_0). Of a LoRA
    policy only the adapter weights are copied; the copy runs them on the policy's shared base."""
    from grue.policy import lora

    if lora.is_lora(model):
        return lora.FrozenAdapter(model).eval()
    clone = copy.deepcopy(model).eval()
    for p in clone.parameters():
        p.requires_grad_(False)
    return clone


def reference_model(model: Any) -> Any:
    """The frozen reference pi_0: a frozen copy, or for a LoRA policy the policy itself with its
    adapters disabled (the base's own weights; nothing is copied)."""
    from grue.policy import lora

    return lora.AdaptersOff(model).eval() if lora.is_lora(model) else frozen_copy(model)


def build_value(cfg: Any, policy: LMPolicy) -> SeparateValue | SharedValue:
    """The critic; the policy says which trunk a separate one copies (for seq2seq: encoder + decoder).

    A separate critic of a LoRA policy copies the base trunk without the policy's adapters and trains it
    whole, or (model.lora.critic=lora) freezes it and trains adapters of its own."""
    from grue.policy import lora

    if cfg.model.value_model == "shared":
        return SharedValue(policy.hidden_size).to(policy.device)
    trunk = policy.value_trunk()
    if lora.lora_layers(trunk):
        trunk = lora.strip_adapters(trunk)
    settings = lora.lora_settings(cfg)
    if settings is not None and getattr(settings, "critic", "full") == "lora":
        lora.add_adapters(trunk, settings)
    if getattr(cfg.model, "gradient_checkpointing", False):
        checkpoint_blocks(trunk)
    return SeparateValue(trunk.eval(), policy.hidden_size).to(policy.device)


def _checkpointed_forward(self: Any, *args: Any, **kwargs: Any) -> Any:
    """A block's forward whose activations are recomputed in the backward pass instead of kept."""
    import torch
    from torch.utils.checkpoint import checkpoint

    forward = type(self).forward
    if torch.is_grad_enabled():
        return checkpoint(forward, self, *args, use_reentrant=False, **kwargs)
    return forward(self, *args, **kwargs)


def checkpoint_blocks(model: Any) -> int:
    """Gradient checkpointing on every transformer block of `model` (the layers transformers marks as
    checkpointable), whatever the module's train/eval mode: transformers' own switch acts in training
    mode only, and grue's models stay in eval mode (dropout off). A bound method per block, so a deep
    copy of the model (the critic's trunk) is checkpointed too. Returns the number of blocks."""
    from transformers.modeling_layers import GradientCheckpointingLayer

    blocks = [m for m in model.modules() if isinstance(m, GradientCheckpointingLayer)]
    if not blocks:
        raise ValueError(f"model.gradient_checkpointing: {type(model).__name__} has no checkpointable blocks")
    for block in blocks:
        block.forward = types.MethodType(_checkpointed_forward, block)
    return len(blocks)
