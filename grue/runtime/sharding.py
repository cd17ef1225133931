"""Parameter sharding for runs too large to replicate (`shard=full|grad_op`, or accelerate=fsdp|zero2|zero3).

Each transformer block, and then the rest of each model, is sharded with torch's FSDP2
(`fully_shard`): every rank stores 1/N of every parameter, gradient and AdamW moment. A forward pass
all-gathers one block at a time and a backward pass reduce-scatters (averages) its gradients, so the
trainer's own gradient averaging leaves sharded parameters alone.

- `full` is FSDP's FULL_SHARD (ZeRO stage 3): blocks are sharded again right after their forward.
- `grad_op` is FSDP's SHARD_GRAD_OP (about ZeRO stage 2): blocks stay gathered from forward to backward,
  which saves an all-gather per block for the memory of holding them.

Generation is the one place where ranks cannot stay in step: each rank decodes its own prompts for as
many steps as they need, and a sharded forward pass is a collective every rank must join. So, as
TRL does for ZeRO-3, decoding (and evaluation, whose perplexity only the main process computes) runs
inside `gathered`: the models are all-gathered once, used locally, and sharded again afterwards.

Checkpoints are sharded too: every process writes its own part of the weights and optimizer state
(torch.distributed.checkpoint), and a resumed run reads back the parts it holds (DCP can re-split
them for another number of processes; the tests resume with the same number). The final model is
gathered onto the main process and saved whole.
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

import torch
from torch import nn
from transformers import PreTrainedModel

MODES = {"full": True, "grad_op": False}  # mode -> FSDP2's reshard_after_forward
# How FSDP's own strategy names map onto the modes (the presets' own map: grue.runtime.accelerate_configs).
STRATEGY_MODES = {"FULL_SHARD": "full", "HYBRID_SHARD": "full", "SHARD_GRAD_OP": "grad_op",
                  "_HYBRID_SHARD_ZERO2": "grad_op"}


def _block_classes(model: nn.Module) -> set[str]:
    """Class names of the model's transformer blocks, as transformers declares them for sharding."""
    names: set[str] = set()
    for module in model.modules():
        names.update(getattr(module, "_no_split_modules", None) or ())
    return names


def is_sharded(tensor: Any) -> bool:
    from torch.distributed.tensor import DTensor

    return isinstance(tensor, DTensor)


class Sharding:
    """The sharding of one run's models over the `world` processes of the default process group."""

    def __init__(self, mode: str, world: int, device: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown shard mode {mode!r}; one of {', '.join(MODES)}")
        from torch.distributed.device_mesh import init_device_mesh

        self.mode, self.world = mode, world
        # FSDP2 warns when a model returns a view (a causal LM's logits often are), because an in-place
        # op on it would skip the backward all-gather. grue only reads model outputs out of place, and the
        # sharded runs' losses match the replicated ones (tests/distributed/test_sharded.py).
        warnings.filterwarnings("ignore", message=r"FSDP2-wrapped module .* returned a view tensor")
        self.mesh = init_device_mesh("cuda" if str(device).startswith("cuda") else "cpu", (world,))

    def shard(self, model: nn.Module) -> nn.Module:
        """Shard `model` in place and return it.

        A transformers model is sharded block by block, then the rest of it as one unit. Any other module
        (a critic: trunk + head) is sharded child by child, because the trainer calls its children
        directly and FSDP gathers a unit's parameters only when that unit itself is called."""
        from torch.distributed.fsdp import fully_shard

        reshard = MODES[self.mode]
        if isinstance(model, PreTrainedModel):
            blocks = _block_classes(model)
            for module in list(model.modules()):
                if module is not model and type(module).__name__ in blocks:
                    fully_shard(module, mesh=self.mesh, reshard_after_forward=reshard)
        else:
            for child in model.children():
                if any(True for _ in child.parameters()):
                    self.shard(child)
        if any(True for _ in model.parameters(recurse=False)) or isinstance(model, PreTrainedModel):
            fully_shard(model, mesh=self.mesh, reshard_after_forward=reshard)
            # Set up the unit tree now: generate() may first call a submodule (an encoder) on its own,
            # which would otherwise make a block the root of its own tree.
            model._get_fsdp_state()._lazy_init()
        return model

    @contextmanager
    def gathered(self, models: Sequence[Optional[nn.Module]]) -> Iterator[None]:
        """Inside, the models hold their full parameters and run without collectives (no_grad use)."""
        from torch.distributed.fsdp import FSDPModule

        units = [m for model in models if model is not None
                 for m in model.modules() if isinstance(m, FSDPModule)]
        for unit in units:
            unit.unshard()
            unit.set_reshard_after_forward(False, recurse=False)
        try:
            yield
        finally:
            for unit in units:
                unit.reshard()
                unit.set_reshard_after_forward(MODES[self.mode], recurse=False)

    # -- whole tensors in and out ------------------------------------------------------------------
    @staticmethod
    def full_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
        """The model's full tensors on the main process (an empty dict elsewhere); every rank must call it."""
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        return get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))

    @staticmethod
    def save_shards(owner: nn.Module, optimizer: torch.optim.Optimizer, directory: Path) -> None:
        """Every process writes its own shards of `owner`'s weights and of the optimizer state
        (torch.distributed.checkpoint); nothing is gathered in one place."""
        import torch.distributed.checkpoint as dcp
        from torch.distributed.checkpoint.state_dict import get_state_dict

        model, optim = get_state_dict(owner, optimizer)
        dcp.save({"model": model, "optimizer": optim}, checkpoint_id=str(directory))

    @staticmethod
    def load_shards(owner: nn.Module, optimizer: torch.optim.Optimizer, directory: Path) -> None:
        """Each process reads back the parts of the saved tensors it holds."""
        import torch.distributed.checkpoint as dcp
        from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

        model, optim = get_state_dict(owner, optimizer)  # this process's shards, filled in place by load
        state = {"model": model, "optimizer": optim}
        dcp.load(state, checkpoint_id=str(directory))
        set_state_dict(owner, optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])

    @staticmethod
    def clip_grad_norm_(params: Sequence[nn.Parameter], max_norm: float) -> float:
        """The global gradient norm over every rank's shards, clipped to `max_norm`."""
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
        return float(norm.full_tensor() if is_sharded(norm) else norm)


def sharding_mode(cfg: Any, accelerator: Any) -> Optional[str]:
    """The run's shard mode: `shard=` if given, else what an accelerate FSDP launch asked for."""
    if cfg.shard:
        return str(cfg.shard)
    plugin = getattr(getattr(accelerator, "state", None), "fsdp_plugin", None)
    if plugin is None:
        return None
    # accelerate's FSDP2 plugin says reshard_after_forward (a bool); its FSDP1 plugin a strategy, kept in
    # reshard_after_forward when given under that name and in sharding_strategy otherwise
    reshard = getattr(plugin, "reshard_after_forward", None)
    if isinstance(reshard, bool):
        return "full" if reshard else "grad_op"
    strategy = reshard if reshard is not None else getattr(plugin, "sharding_strategy", None)
    return STRATEGY_MODES.get(str(getattr(strategy, "name", strategy)), "full")
