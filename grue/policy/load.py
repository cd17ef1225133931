"""Build the policy, frozen reference, masking model and critic a run needs from its config."""
from __future__ import annotations

import copy
from typing import Any

from grue.assets import resolve_model
from grue.policy.base import LMPolicy
from grue.policy.causal import CausalPolicy
from grue.policy.seq2seq import Seq2SeqPolicy
from grue.policy.value import SeparateValue, SharedValue


def _quiet_transformers() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


def training_dtype(name: str) -> Any:
    """`model.dtype` as from_pretrained's argument. transformers 5 loads a checkpoint in the dtype it was
    saved in, so a bf16 checkpoint would train in pure bf16 (AdamW updates at lr 1e-6 mostly round
    away); float32, the default, is how the reference code trains."""
    import torch

    return "auto" if name == "checkpoint" else getattr(torch, name)


def load_policy(cfg: Any, model_ref: str, device: str) -> LMPolicy:
    """The trainable policy of `model.kind`; dropout stays off for its whole life (eval mode; spec 3.9)."""
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    kinds = {"causal": (AutoModelForCausalLM, CausalPolicy), "seq2seq": (AutoModelForSeq2SeqLM, Seq2SeqPolicy)}
    if cfg.model.kind not in kinds:
        raise ValueError(f"model.kind must be one of {sorted(kinds)}, not {cfg.model.kind!r}")
    auto_model, policy_class = kinds[cfg.model.kind]
    _quiet_transformers()
    path = resolve_model(model_ref, task=cfg.task)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = auto_model.from_pretrained(path, dtype=training_dtype(cfg.model.dtype)).to(device).eval()
    return policy_class(model, tokenizer, cfg.model.max_prompt_length, cfg.model.padding_side,
                        cfg.model.truncation_side, device)


def frozen_copy(model: Any) -> Any:
    """A frozen deep copy: the reference pi_0 or the NLPO masking model pi_psi."""
    clone = copy.deepcopy(model).eval()
    for p in clone.parameters():
        p.requires_grad_(False)
    return clone


def build_value(cfg: Any, policy: LMPolicy) -> SeparateValue | SharedValue:
    """The critic; the policy says which trunk a separate one copies (for seq2seq: encoder + decoder)."""
    if cfg.model.value_model == "shared":
        return SharedValue(policy.hidden_size).to(policy.device)
    return SeparateValue(policy.value_trunk().eval(), policy.hidden_size).to(policy.device)
