"""Where one GRPO update's time goes, the same way on grue's side and TRL's (docs/speed.md, "Where the update's
time goes"): `torch.profiler` over one measured iteration, the rollout left out.

Each side labels the parts of its update by wrapping the methods that do them (`label`): the policy's forward
with its log-prob head (`forward`), the loss's backward (`backward`), gradient clipping (`clip`) and the
optimizer's step (`optimizer`); the rollout is labelled `rollout` and everything inside it is left out. The
result is one JSON file per side: the update's wall time, each label's inclusive CPU time, and the operators'
own CPU time summed by name. `compare` prints two such files side by side:

    python scripts/bench/update_profile.py compare grue.json trl.json

Standard library and torch only: imported under grue's environment and under TRL's.
"""
from __future__ import annotations

import functools
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

PARTS = ("forward", "backward", "clip", "optimizer")


def label(owner: Any, method: str, name: str) -> None:
    """Run `owner.method` inside a profiler range called `name` from now on (an instance or a class)."""
    import torch

    original = getattr(owner, method)

    @functools.wraps(original)
    def wrapped(*args, **kwargs):
        with torch.profiler.record_function(name):
            return original(*args, **kwargs)

    setattr(owner, method, wrapped)


class UpdateProfile:
    """A profiler started and stopped around one iteration, summarised without the rollout's events."""

    def __init__(self, out: str, side: str) -> None:
        self.out, self.side, self.prof, self.start_s = Path(out), side, None, 0.0

    def start(self) -> None:
        import torch

        self.prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
        self.prof.__enter__()
        self.start_s = time.perf_counter()

    def stop(self) -> None:
        self.wall_s = time.perf_counter() - self.start_s
        self.prof.__exit__(None, None, None)

    def write(self, update_s: float) -> None:
        """The summary of the profiled iteration, with the update's wall time in it (`update_s`)."""
        events = list(self.prof.events())
        rollouts = [(e.time_range.start, e.time_range.end) for e in events if e.name == "rollout"]

        def in_rollout(e) -> bool:
            return any(a <= e.time_range.start and e.time_range.end <= b for a, b in rollouts)

        own: dict[str, float] = defaultdict(float)
        calls: dict[str, int] = defaultdict(int)
        parts: dict[str, float] = defaultdict(float)
        for e in events:
            if e.name == "rollout" or in_rollout(e):
                continue
            if e.name in PARTS:
                parts[e.name] += e.cpu_time_total / 1e6
                continue
            own[e.name] += e.self_cpu_time_total / 1e6
            calls[e.name] += 1
        ops = sorted(own, key=own.get, reverse=True)
        self.out.write_text(json.dumps({
            "side": self.side, "update_s": update_s, "profiled_iteration_s": self.wall_s,
            "parts_s": dict(parts), "ops": {name: [own[name], calls[name]] for name in ops},
        }, indent=1))


def compare(paths: list[str], top: int = 25) -> str:
    """A markdown table of the labelled parts and the operators with the most own CPU time, one column a side."""
    sides = [json.loads(Path(p).read_text()) for p in paths]
    names = [s["side"] for s in sides]
    rows = ["| part | " + " | ".join(names) + " |", "|---|" + "---:|" * len(sides)]
    rows.append("| update, wall under the profiler | " + " | ".join(f"{s['update_s']:.2f}" for s in sides) + " |")
    for part in PARTS:
        rows.append(f"| {part} | " + " | ".join(f"{s['parts_s'].get(part, 0.0):.2f}" for s in sides) + " |")
    rows.append("| operators' own time, update | "
                + " | ".join(f"{sum(v[0] for v in s['ops'].values()):.2f}" for s in sides) + " |")
    total: dict[str, float] = defaultdict(float)
    for s in sides:
        for name, (seconds, _calls) in s["ops"].items():
            total[name] = max(total[name], seconds)
    rows += ["", "| operator (own CPU s, calls) | " + " | ".join(names) + " |", "|---|" + "---:|" * len(sides)]
    for name in sorted(total, key=total.get, reverse=True)[:top]:
        cells = [f"{s['ops'][name][0]:.3f} ({s['ops'][name][1]})" if name in s["ops"] else "-" for s in sides]
        rows.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    if sys.argv[1:2] != ["compare"] or len(sys.argv) < 4:
        raise SystemExit("usage: update_profile.py compare A.json B.json [...]")
    print(compare(sys.argv[2:]))
