"""The largest gap between recorded and recomputed log-probs that the causal consistency tests see under bf16
autocast (tests/train/test_mixed_precision.py), on this machine's CPU: whether it has native bf16 products
decides the tolerance those tests hold to (1e-5 with them, EMULATED_BF16_ATOL without).

    .venv/bin/python scripts/bf16_consistency_gaps.py

Runs those tests through pytest with every torch.allclose call's largest absolute difference recorded (the
tests' own assertions still decide pass or fail), then prints the largest.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests import each other as the package `tests`

from grue.policy.packed_linear import bf16_packing_supported  # noqa: E402


class GapRecorder:
    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._allclose = torch.allclose

    def pytest_configure(self, config) -> None:
        def recording(a, b, *args, **kwargs):
            self.gaps.append(float((a - b).abs().max()))
            return self._allclose(a, b, *args, **kwargs)
        torch.allclose = recording

    def pytest_unconfigure(self, config) -> None:
        torch.allclose = self._allclose


def main() -> int:
    recorder = GapRecorder()
    code = pytest.main(["-q", "-p", "no:cacheprovider", str(ROOT / "tests/train/test_mixed_precision.py"),
                        "-k", "causal_consistency or ratio_of_one"], plugins=[recorder])
    print(f"native bf16 products: {bf16_packing_supported()}; largest recorded/recomputed gap: "
          f"{max(recorder.gaps, default=float('nan')):.1e} over {len(recorder.gaps)} comparisons")
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
