"""Build the policy, frozen reference, masking model and critic a run needs from its config."""
from __future__ import annotations

import copy
from typing import Any

from grue.assets import resolve_model
from grue.policy.causal import CausalPolicy
from grue.policy.value import SeparateValue, SharedValue


def _quiet_transformers() -> None:
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


def load_policy(cfg: Any, model_ref: str, device: str) -> CausalPolicy:
    """The trainable policy; dropout stays off for its whole life (eval mode; spec 3.9)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _quiet_transformers()
    if cfg.model.kind != "causal":
        raise NotImplementedError("encoder-decoder policies arrive with the seq2seq issue; use a causal LM")
    path = resolve_model(model_ref, task=cfg.task)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).to(device).eval()
    return CausalPolicy(model, tokenizer, cfg.model.max_prompt_length, cfg.model.padding_side,
                        cfg.model.truncation_side, device)


def frozen_copy(model: Any) -> Any:
    """A frozen deep copy: the reference pi_0 or the NLPO masking model pi_psi."""
    clone = copy.deepcopy(model).eval()
    for p in clone.parameters():
        p.requires_grad_(False)
    return clone


def build_value(cfg: Any, policy: CausalPolicy) -> SeparateValue | SharedValue:
    hidden = policy.model.config.hidden_size
    if cfg.model.value_model == "shared":
        return SharedValue(hidden).to(policy.device)
    trunk = copy.deepcopy(policy.model.get_decoder() if hasattr(policy.model, "get_decoder") else policy.model.base_model)
    return SeparateValue(trunk.eval(), hidden).to(policy.device)
