"""The one error for an asset that cannot be had here, with the three ways out."""
from __future__ import annotations

from grue.errors import GrueUserError


class AssetMissing(GrueUserError, RuntimeError):
    def __init__(self, ref: str, kind: str, why: str, task: str | None = None) -> None:
        fetch = f"grue fetch task={task}" if task else f"grue fetch task=<task>"
        super().__init__(
            f"{kind} {ref!r} is not available on this machine ({why}).\n"
            f"Ways out:\n"
            f"  1. on a machine with hub access run `{fetch}` and copy the hub cache here "
            f"(HF_HOME / HF_HUB_CACHE);\n"
            f"  2. point the config at a local copy, e.g. `model.policy=/path/to/dir` or `data.source=/path/to/dir`;\n"
            f"  3. use the packaged CPU-sized assets: `profile=mini`."
        )
        self.ref, self.kind, self.why = ref, kind, why
