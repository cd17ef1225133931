"""Decoding's packed oneDNN products (grue.policy.packed_linear): the same products to float rounding,
only inside the block, from the weights as they are when the block starts."""
import pytest
import torch

from grue.policy import packed_linear
from grue.policy.packed_linear import available, bf16_packing_supported, packed_linears


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8, bias=False))


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="needs oneDNN")
def test_packed_products_equal_torchs_to_rounding_and_only_inside_the_block():
    net = model()
    x = torch.randn(3, 5, 16)
    expected = net(x)
    with packed_linears(net):
        assert all("forward" in vars(m) for m in net if isinstance(m, torch.nn.Linear))  # really swapped
        packed = net(x)
    assert torch.allclose(packed, expected, atol=1e-5) and packed.shape == expected.shape
    assert not any("forward" in vars(m) for m in net)  # restored
    assert torch.equal(net(x), expected)


def test_nothing_is_packed_when_disabled_or_not_float32():
    net = model()
    with packed_linears(net, enabled=False):
        assert not any("forward" in vars(m) for m in net)
    half = model().to(torch.bfloat16)
    assert not available(half)
    with packed_linears(half):
        assert not any("forward" in vars(m) for m in half)


@pytest.mark.skipif(not torch.backends.mkldnn.is_available() or not bf16_packing_supported(),
                    reason="needs oneDNN with bf16 instructions")
def test_under_bf16_autocast_the_packed_products_are_autocasts_bf16_products():
    """A model run under grue's bf16 autocast gets bf16 packed weights: its packed output is autocast's
    (bf16 products of bf16-rounded weights and inputs) to bf16 rounding, and far from the fp32 products'
    rounding error, so the packing really runs in bf16 rather than ignoring autocast."""
    from grue.runtime.accelerator import autocast_forward

    net = model()
    x = torch.randn(64, 16)
    exact = net(x)                                  # fp32
    autocast_forward(net, ("cpu", "bfloat16"))
    under_autocast = net(x)                         # torch's own autocast: bf16 products
    with packed_linears(net):
        packed = net(x)
    assert packed.dtype == under_autocast.dtype == torch.bfloat16
    assert torch.allclose(packed.float(), under_autocast.float(), atol=2e-2, rtol=2e-2)
    # bf16 keeps 8 bits of mantissa: the products differ from fp32 by far more than fp32 packing would
    assert (packed.float() - exact).abs().max() > 1e-3
    plain = model()
    with packed_linears(plain):
        assert torch.allclose(plain(x), exact, atol=1e-5)  # without autocast: fp32 packing, as before


def test_without_bf16_instructions_a_bf16_model_keeps_autocasts_products_and_fp32_still_packs(monkeypatch):
    """oneDNN raises on a bf16 linear where the CPU has no bf16 instructions (CI ran on such an AVX2 CPU):
    there the block leaves a bf16 model's linears to autocast and still packs a float32 model."""
    from grue.runtime.accelerator import autocast_forward

    monkeypatch.setattr(packed_linear, "bf16_packing_supported", lambda: False)
    net = model()
    x = torch.randn(4, 16)
    autocast_forward(net, ("cpu", "bfloat16"))
    under_autocast = net(x)
    with packed_linears(net):
        assert not any("forward" in vars(m) for m in net if isinstance(m, torch.nn.Linear))
        assert torch.equal(net(x), under_autocast)
    plain = model()
    with packed_linears(plain):
        assert available(plain) == all("forward" in vars(m) for m in plain if isinstance(m, torch.nn.Linear))
