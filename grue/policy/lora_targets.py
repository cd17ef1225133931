"""Which layers LoRA adapts, known without torch: each backbone family's preset targets and linear layer
names, and the check of `model.lora.target_modules` against them, so `grue config`, `grue plan` and the
run's preflight refuse an unknown name alike, before any model is loaded (grue/policy/lora.py builds the
adapters)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

# Target modules per backbone (config.model_type): every attention and MLP projection, never the
# embeddings or the vocabulary head. A backbone not named here gets peft's "all-linear" (every
# Linear but the output layer).
PRESETS: dict[str, tuple[str, ...]] = {
    "gpt2": ("c_attn", "c_proj", "c_fc"),                    # Conv1D layers; peft transposes them (fan_in_fan_out)
    "llama": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),  # SmolLM2
    "mistral": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
    "qwen2": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
    "qwen3": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
    "gemma": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
    "t5": ("q", "k", "v", "o", "wi", "wi_0", "wi_1", "wo"),   # T5 v1.0 (wi) and v1.1 / FLAN (wi_0, wi_1)
    "mt5": ("q", "k", "v", "o", "wi_0", "wi_1", "wo"),
    "bart": ("q_proj", "k_proj", "v_proj", "out_proj", "fc1", "fc2"),
}
ALL_LINEAR = "all-linear"

# Every linear layer's last name per backbone family: what `model.lora.target_modules` may name there, so an
# unknown name is refused before any asset is built or model loaded (a name peft matches nowhere is silently
# skipped when another one matches). A family not listed is checked when the model loads (`add_adapters`).
FAMILY_LAYERS: dict[str, tuple[str, ...]] = {
    **{family: (*PRESETS[family], "lm_head") for family in ("llama", "mistral", "qwen2", "qwen3", "gemma", "bart")},
    "gpt2": ("c_attn", "q_attn", "c_proj", "c_fc", "lm_head"),
    "t5": ("q", "k", "v", "o", "wi", "wi_0", "wi_1", "wo", "lm_head"),
    "mt5": ("q", "k", "v", "o", "wi", "wi_0", "wi_1", "wo", "lm_head"),
}
PACKAGED_FAMILIES = {"packaged:smollm2-135m": "llama"}  # known without converting the packaged model
_PATTERN_CHARS = set("*?[]()|\\^$+{}")  # a name with these is a pattern of the user's: left to peft


def lora_settings(cfg: Any) -> Optional[Any]:
    """The run's `model.lora` group when adapters are on (rank > 0), else None."""
    lora = getattr(getattr(cfg, "model", None), "lora", None)
    return lora if lora is not None and int(lora.rank) > 0 else None


def unknown_targets(configured: Any, known: Any) -> list[str]:
    """The names of `configured` whose last part (peft matches `mlp.c_proj` by its end) is no layer in `known`."""
    return [name for name in map(str, configured or ())
            if not _PATTERN_CHARS & set(name) and name.rsplit(".", 1)[-1] not in set(known)]


def _unknown_message(configured: Any, unknown: list[str], what: str, known: Any) -> str:
    return (f"model.lora.target_modules={list(map(str, configured))}: {', '.join(unknown)} names no layer of {what}; "
            f"its linear layers are named {', '.join(sorted(known))} (leave the setting unset for the backbone's preset)")


def _family(ref: str) -> Optional[str]:
    """The model_type of a model reference known without loading it: a packaged one, or a local folder's
    config.json (a hub id is checked when the model loads)."""
    if ref in PACKAGED_FAMILIES:
        return PACKAGED_FAMILIES[ref]
    config = Path(ref).expanduser() / "config.json"
    try:
        model_type = json.loads(config.read_text(encoding="utf-8")).get("model_type")
    except (OSError, ValueError, AttributeError):  # not a local folder, or a config eval/load reports itself
        return None
    return model_type if isinstance(model_type, str) else None


def target_problems(cfg: Any) -> list[str]:
    """model.lora.target_modules names no layer of the policy's family (when that is known without loading)."""
    lora = lora_settings(cfg)
    if lora is None or not lora.target_modules:
        return []
    family = _family(str(cfg.model.policy))
    if family not in FAMILY_LAYERS:
        return []
    unknown = unknown_targets(lora.target_modules, FAMILY_LAYERS[family])
    return [_unknown_message(lora.target_modules, unknown, f"a {family} model ({cfg.model.policy})",
                             FAMILY_LAYERS[family])] if unknown else []
