"""Decoding's matrix products through oneDNN with weights packed once per decode (CPU).

A decode step multiplies a few rows by every weight matrix. On CPU, torch's dense fp32 `linear` re-reads
each weight in its plain layout at every step; oneDNN's linear with the weight reordered once into its
blocked layout (the same reorder torch's inductor applies when it freezes a model) runs these small-row
products about twice as fast on the machines grue is measured on (scripts/bench_generation.py). The
values are the same products, summed in another order: they agree with `linear` to float rounding, as
generate()'s cached decoding already does with the update's full forward pass.

`packed_linears(model)` swaps every nn.Linear's forward for the packed one for the length of a `with`
block and restores it after: the packed copies are made from the weights as they are when the block
starts, so a decode always uses the current policy. Off where oneDNN is unavailable, off the CPU, or
for other dtypes than float32.

A model that runs under bf16 autocast (model.mixed_precision=bf16, grue.runtime.accelerator.autocast_forward)
gets its weights packed in bf16 and its products in bf16, as autocast would run them: packed fp32 weights
would ignore autocast, and its products would run at fp32's rate (`scripts/bench_generation.py
--mixed-precision bf16` times the decode under it). oneDNN's bf16 linear needs a CPU with bf16 support
(AVX512-BW/VL/DQ or AVX-NE-CONVERT) and raises elsewhere: on such a CPU (AVX2 only) a bf16 model is left
to autocast's own products.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import torch


def available(model: Any) -> bool:
    try:
        param = next(model.parameters())
    except StopIteration:
        return False
    return (torch.backends.mkldnn.is_available() and param.device.type == "cpu" and param.dtype == torch.float32)


def bf16_packing_supported() -> bool:
    """Whether oneDNN can run bf16 linears on this CPU (it refuses on CPUs without bf16 instructions)."""
    return torch.ops.mkldnn._is_mkldnn_bf16_supported()


def autocast_dtype(model: Any) -> torch.dtype:
    """The dtype `model`'s matrix products run in: bf16 under grue's bf16 autocast, else float32."""
    settings = model.__dict__.get("_grue_autocast")
    return torch.bfloat16 if settings and settings[0] == "cpu" and settings[1] == "bfloat16" else torch.float32


def _packed_forward(weight: torch.Tensor, bias: Any, dtype: torch.dtype = torch.float32):
    packed = weight.detach().to(dtype).to_mkldnn()
    packed_bias = bias.detach().to(dtype).to_mkldnn() if bias is not None else None
    out_features = weight.shape[0]

    def forward(x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1, x.shape[-1]).to(dtype)
        if not flat.is_contiguous():
            flat = flat.contiguous()
        y = torch._C._nn.mkldnn_linear(flat.to_mkldnn(), packed, packed_bias).to_dense()
        return y.reshape(*x.shape[:-1], out_features)

    return forward


@contextmanager
def packed_linears(model: Any, enabled: bool = True) -> Iterator[None]:
    """Every nn.Linear of `model` through packed oneDNN weights inside the block (a no-op when not `enabled`
    or not available)."""
    if not enabled or not available(model):
        yield
        return
    swapped, dtype = [], autocast_dtype(model)
    if dtype == torch.bfloat16 and not bf16_packing_supported():
        yield
        return
    try:
        for module in model.modules():
            if (isinstance(module, torch.nn.Linear) and type(module).forward is torch.nn.Linear.forward
                    and type(module.weight.data) is torch.Tensor):  # not a sharded (DTensor) or wrapped weight
                module.forward = _packed_forward(module.weight, module.bias, dtype)
                swapped.append(module)
        yield
    finally:
        for module in swapped:
            del module.forward
