"""A row's draw depends on its own values and uniform only, even when another row of the batch ties at top-k's
boundary. Before, one tied row sent every row down the whole-vocabulary path, whose inverse CDF walks token ids
in vocabulary order, so the same uniform picked another token: NLPO (whose finished rows stay in the batch, fed
padding) then sampled unlike PPO with a mask that removed nothing."""
from __future__ import annotations

from types import SimpleNamespace

import torch

from grue.policy.sampling import FusedSampler

GEN = SimpleNamespace(do_sample=True, temperature=1.0, top_k=3, top_p=1.0, min_new_tokens=0)


def _tied(values: torch.Tensor) -> torch.Tensor:
    """The row with its 4th largest value raised to its 3rd: top-3 has a tie at its boundary."""
    row = values.clone()
    top = row.topk(4)
    row[top.indices[3]] = top.values[2]
    return row


def test_a_tied_row_does_not_change_its_neighbours_draws():
    sampler = FusedSampler(GEN, eos_id=None)
    gen = torch.Generator().manual_seed(0)
    plain = torch.randn(6, 40, generator=gen)
    u = torch.rand(7, generator=gen, dtype=torch.float64)
    tied = _tied(torch.randn(40, generator=gen))
    alone = sampler(plain, 0, u[:6], [], None, True)
    mixed = sampler(torch.cat([plain[:3], tied[None], plain[3:]]), 0, torch.cat([u[:3], u[6:], u[3:6]]), [], None, True)
    keep = [0, 1, 2, 4, 5, 6]
    assert torch.equal(mixed[0][keep], alone[0])
    assert torch.allclose(mixed[1][keep], alone[1]) and torch.equal(mixed[2][keep], alone[2])
    assert torch.equal(mixed[3][keep], alone[3])  # the allowed sets: each row's own top 3
    # the tied row keeps every value >= its 3rd (generate()'s rule): 4 tokens, drawn from, and recorded as such
    assert int(mixed[3][3].sum()) == 4 and bool(mixed[3][3][mixed[0][3]])
    by_itself = sampler(tied[None], 0, u[6:], [], None, True)
    assert torch.equal(mixed[0][3:4], by_itself[0]) and torch.allclose(mixed[1][3:4], by_itself[1])


def test_without_records_the_tokens_are_the_same():
    sampler = FusedSampler(GEN, eos_id=None)
    gen = torch.Generator().manual_seed(1)
    scores = torch.cat([torch.randn(2, 40, generator=gen), _tied(torch.randn(40, generator=gen))[None]])
    u = torch.rand(3, generator=gen, dtype=torch.float64)
    assert torch.equal(sampler(scores, 0, u, [], None, False)[0], sampler(scores, 0, u, [], None, True)[0])
