"""LoRA adapters (the `peft` library) on a policy: `model.lora.rank=16` trains low-rank adapters on
the attention and MLP projections and keeps every base weight frozen.

The adapters are injected into the transformers model itself (peft's `inject_adapter_in_model`), so
`policy.model` stays the model class it was: generate(), the logits-only-at-the-actions argument, the
KV cache argument and the NLPO mask processors see the model they always did.

The models a LoRA run would otherwise copy whole share the base instead:
- the reference pi_0 is the policy with its adapters disabled (`AdaptersOff`): the base's own weights,
  no second copy, the base's logits exactly (tests/policy/test_lora.py);
- NLPO's masking model pi_psi is a frozen copy of the adapter weights only (`FrozenAdapter`), run on
  the shared base by putting those weights in the adapter's place for the duration of a call; its
  refresh and checkpoint move adapter weights only;
- the critic stays a model of its own: `model.value_model=separate` copies the base's trunk without
  the policy's adapters and trains it whole (as without LoRA; `model.lora.critic=lora`: freezes that
  copy and trains adapters of its own, with the same settings), `shared` puts the value head on the
  policy's trunk, whose adapters then get the value loss's gradients too.

Checkpoints hold the trainable tensors only (the adapters; grue.train.checkpoint). The run's final
`model/` holds the merged model, loadable by plain transformers, and the adapter in peft's layout
under `model/adapter/` (`save_merged`).
"""
from __future__ import annotations

import functools
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import torch
from torch import nn

from grue.policy.lora_targets import (  # noqa: F401  (re-exported: the adapters' own names)
    ALL_LINEAR, FAMILY_LAYERS, PRESETS, lora_settings, target_problems, unknown_targets, _unknown_message,
)

ADAPTER = "default"
ADAPTER_DIR = "adapter"  # inside a run's model/: the adapter in peft's layout


def target_modules(model: Any, configured: Optional[list[str]]) -> list[str] | str:
    if configured:
        return list(configured)
    return list(PRESETS.get(getattr(model.config, "model_type", ""), ())) or ALL_LINEAR


def linear_layer_names(model: Any) -> list[str]:
    """The distinct last names of the model's linear layers (what target_modules may name)."""
    kinds = ("Linear", "Conv1D")  # GPT-2's projections are Conv1D
    return sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules()
                   if name and type(module).__name__ in kinds})


def alpha_of(lora: Any) -> float:
    """lora_alpha: as set, or twice the rank (a scale of 2, the common choice)."""
    return float(lora.alpha) if lora.alpha is not None else 2.0 * int(lora.rank)


def peft_config(model: Any, lora: Any, base_ref: Optional[str] = None) -> Any:
    from peft import LoraConfig

    if float(lora.dropout) != 0.0:
        raise ValueError(f"model.lora.dropout={lora.dropout}: grue keeps dropout off for the policy's whole life "
                         "(the sampled and the recomputed log-probs must be the same function), so adapter dropout "
                         "would never act; leave it at 0")
    return LoraConfig(r=int(lora.rank), lora_alpha=alpha_of(lora), lora_dropout=0.0,
                      target_modules=target_modules(model, lora.target_modules), bias="none",
                      base_model_name_or_path=base_ref)


def add_adapters(model: nn.Module, lora: Any, base_ref: Optional[str] = None) -> nn.Module:
    """Inject fresh LoRA adapters into `model` in place (B = 0: the model's function is unchanged) and
    freeze everything else. The adapters start in the base weights' dtype and device."""
    import warnings

    from peft import inject_adapter_in_model

    from grue.errors import ConfigError

    config = peft_config(model, lora, base_ref)
    unknown = unknown_targets(lora.target_modules, linear_layer_names(model))
    if unknown and len(unknown) < len(lora.target_modules or ()):  # peft skips them silently when another matches
        raise ConfigError(_unknown_message(lora.target_modules, unknown, f"this {type(model).__name__}",
                                           linear_layer_names(model)))
    unmatched = ConfigError(
        f"model.lora.target_modules={lora.target_modules} matched no layer of this {type(model).__name__}; its "
        f"linear layers are named {', '.join(linear_layer_names(model))} (leave the setting unset for the "
        "backbone's preset)")
    with warnings.catch_warnings():  # "fan_in_fan_out is set to False but the target module is Conv1D": set for it
        warnings.filterwarnings("ignore", message=".*fan_in_fan_out.*")
        try:
            inject_adapter_in_model(config, model, adapter_name=ADAPTER)
        except ValueError as err:  # peft's "Target modules ... not found in the base model"
            if "not found" in str(err):
                raise unmatched from None
            raise
    if not lora_layers(model):
        raise unmatched
    for name, param in model.named_parameters():
        param.requires_grad_(is_adapter_key(name))
    return model


def is_adapter_key(name: str) -> bool:
    return ".lora_" in name


def lora_layers(model: nn.Module) -> list[nn.Module]:
    from peft.tuners.lora import LoraLayer

    return [m for m in model.modules() if isinstance(m, LoraLayer)]


def is_lora(model: Any) -> bool:
    """Whether `model` carries grue's LoRA adapters (or is a view of a model that does)."""
    if isinstance(model, _SharedBaseView):
        return True
    return isinstance(model, nn.Module) and bool(getattr(model, "peft_config", None)) and bool(lora_layers(model))


def is_lora_view(model: Any) -> bool:
    """Whether `model` is a view of a LoRA policy's shared network (the reference, NLPO's masking model)."""
    return isinstance(model, _SharedBaseView)


def adapter_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The adapter tensors by the model's own parameter names (what a checkpoint and pi_psi hold)."""
    return {k: v for k, v in model.state_dict().items() if is_adapter_key(k)}


@contextmanager
def adapters_disabled(model: nn.Module) -> Iterator[None]:
    """The base model's own function for the duration (peft's switch on every LoRA layer)."""
    layers = lora_layers(model)
    for layer in layers:
        layer.enable_adapters(False)
    try:
        yield
    finally:
        for layer in layers:
            layer.enable_adapters(True)


@contextmanager
def weights_swapped(model: nn.Module, tensors: dict[str, torch.Tensor]) -> Iterator[None]:
    """`model`'s parameters named in `tensors` replaced by those tensors for the duration."""
    saved = []
    try:
        for name, tensor in tensors.items():
            owner, _, attr = name.rpartition(".")
            module = model.get_submodule(owner)
            saved.append((module, attr, module._parameters[attr]))
            module._parameters[attr] = tensor
        yield
    finally:
        for module, attr, param in reversed(saved):
            module._parameters[attr] = param


class _SharedBaseView(nn.Module):
    """A model that runs the policy's own (shared) network in another adapter state. It registers the
    shared model as no submodule of its own: its parameters, state and device moves are its own only."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.__dict__["_shared"] = model  # not a submodule: not in parameters(), state_dict() or .to()

        def forward(*args: Any, **kwargs: Any) -> Any:
            with self.active():
                return self._shared(*args, **kwargs)

        # the shared model's signature, so a caller that reads it (the KV cache argument's name) reads the real one
        functools.update_wrapper(forward, model.forward)
        self.__dict__["forward"] = forward

    def active(self):
        raise NotImplementedError

    def language_model_for_head(self) -> nn.Module:
        """The module whose output embedding a pass of this view runs (grue.policy.base)."""
        return self._shared

    @property
    def config(self) -> Any:
        return self._shared.config

    def get_encoder(self) -> Any:
        encoder = self._shared.get_encoder()

        def run(*args: Any, **kwargs: Any) -> Any:
            with self.active():
                return encoder(*args, **kwargs)

        return run

    def train(self, mode: bool = True) -> "_SharedBaseView":  # the shared model's mode is the policy's business
        self.training = mode
        return self


class AdaptersOff(_SharedBaseView):
    """The reference pi_0 of a LoRA policy: the same network with its adapters disabled."""

    def active(self):
        return adapters_disabled(self._shared)


class FrozenAdapter(_SharedBaseView):
    """NLPO's masking model pi_psi for a LoRA policy: frozen copies of the adapter weights, run on the
    policy's shared base. `load_state_dict(policy.model.state_dict())` (the refresh) copies the
    adapter tensors in and ignores the base's."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__(model)
        self._names: dict[str, str] = {}
        for name, tensor in adapter_state(model).items():
            key = name.replace(".", "__")
            self._names[key] = name
            self.register_buffer(key, tensor.detach().clone())

    def active(self):
        return weights_swapped(self._shared, {name: getattr(self, key) for key, name in self._names.items()})

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        by_name = {v: k for k, v in self._names.items()}
        mine = {}
        for key, value in state_dict.items():
            if key in self._names:
                mine[key] = value
            elif key in by_name:
                mine[by_name[key]] = value
        return super().load_state_dict(mine, strict=strict, assign=assign)


def strip_adapters(module: nn.Module) -> nn.Module:
    """`module` (a copy) with every LoRA layer replaced by the layer it wraps, and trainable again."""
    from peft.tuners.lora import LoraLayer

    for name, child in list(module.named_modules()):
        if isinstance(child, LoraLayer):
            owner, _, attr = name.rpartition(".")
            setattr(module.get_submodule(owner) if owner else module, attr, child.get_base_layer())
    if hasattr(module, "peft_config"):
        del module.peft_config
    for param in module.parameters():
        param.requires_grad_(True)
    return module


def base_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """The base model's own weights under its own names (adapters left out, not merged)."""
    return {key.replace(".base_layer.", "."): value for key, value in model.state_dict().items()
            if not is_adapter_key(key)}


@torch.no_grad()
def merged_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict of the base model with every adapter merged into its weight, under the base
    model's own names (what plain transformers loads)."""
    layers = set(lora_layers(model))
    deltas = {name: module.get_delta_weight(ADAPTER) for name, module in model.named_modules() if module in layers}
    merged = {}
    for key, value in model.state_dict().items():
        if is_adapter_key(key):
            continue
        if ".base_layer." in key:
            owner, _, leaf = key.partition(".base_layer.")
            plain = f"{owner}.{leaf}"
            merged[plain] = (value + deltas[owner].to(value.dtype)) if leaf == "weight" and owner in deltas else value
        else:
            merged[key] = value
    return merged


def save_merged(model: nn.Module, directory: Path, state_dict: Optional[dict] = None) -> None:
    """`directory`: the merged model (config, weights: plain transformers loads it) and, under
    `adapter/`, the adapter in peft's layout (PeftModel.from_pretrained(base, directory / "adapter"))."""
    from safetensors.torch import save_file

    directory = Path(directory)
    model.save_pretrained(directory, state_dict=state_dict or merged_state_dict(model))
    adapter_dir = directory / ADAPTER_DIR
    adapter_dir.mkdir(parents=True, exist_ok=True)
    config = model.peft_config[ADAPTER]
    config.save_pretrained(str(adapter_dir))
    tensors = {f"base_model.model.{k.replace(f'.{ADAPTER}.', '.')}": v.detach().contiguous().cpu()
               for k, v in adapter_state(model).items()}
    save_file(tensors, str(adapter_dir / "adapter_model.safetensors"), metadata={"format": "pt"})


def adapter_base(path: Path) -> Optional[str]:
    """The base model an adapter directory (peft's adapter_config.json, no config.json) names, else None."""
    config = Path(path) / "adapter_config.json"
    if not config.is_file() or (Path(path) / "config.json").is_file():
        return None
    base = json.loads(config.read_text(encoding="utf-8")).get("base_model_name_or_path")
    if not base:
        raise ValueError(f"{config} names no base_model_name_or_path: cannot tell which model the adapter belongs to")
    return str(base)


def merge_adapter_into(model: nn.Module, adapter_dir: Path) -> nn.Module:
    """`model` (the adapter's base) with the adapter of `adapter_dir` merged in: a plain transformers model."""
    from peft import PeftModel

    return PeftModel.from_pretrained(model, str(adapter_dir)).merge_and_unload()
