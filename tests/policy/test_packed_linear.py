"""Decoding's packed oneDNN products (grue.policy.packed_linear): the same products to float rounding,
only inside the block, from the weights as they are when the block starts."""
import pytest
import torch

from grue.policy.packed_linear import available, packed_linears


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
