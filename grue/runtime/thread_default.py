"""How many threads a run uses when `threads=` is unset: torch's own default, lowered to the cores no other
process is using, so a run on a shared machine does not oversubscribe it.

torch's default is one thread per physical core, whatever else runs there. On a machine whose cores are
already busy, every extra thread waits for a core and their synchronisation multiplies the wait (issue 47
measured a 48-prompt evaluation at 10 minutes with the default and ~30 s with `threads=1` on a loaded
2-core machine). The cores free now are those this process may run on (its CPU affinity: a container's or a
scheduler's limit) minus the 1-minute load average, rounded; at least one. The default only ever lowers
torch's count, never raises it: `OMP_NUM_THREADS` (which torch reads), or a caller's own
`torch.set_num_threads`, stays the ceiling. `threads=N` is used as given.

The thread count can change the last digits of floating-point sums, so two runs that must agree to the bit
(a resume on a machine whose load changed) should set `threads=` (docs/extending.md, "Threads").
"""
from __future__ import annotations

import os

_CHOSEN: list[int] = []  # the count this process chose first: its own later load must not lower it again


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        return os.cpu_count() or 1


def busy_cores() -> float:
    """The 1-minute load average (0 where the system has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def unloaded_threads(ceiling: int, cores: int | None = None, load: float | None = None) -> int:
    """`ceiling` (torch's current count) lowered to the cores not busy now: max(1, min(ceiling, cores - load))."""
    cores = usable_cores() if cores is None else cores
    load = busy_cores() if load is None else load
    return max(1, min(int(ceiling), int(round(cores - load))))


def default_threads(ceiling: int) -> int:
    """The process's default: chosen once, at its first run's start (a warm start's supervised run, then the
    RL run, in one process: the load the first one made is this process's own, not another's)."""
    if not _CHOSEN:
        _CHOSEN.append(unloaded_threads(ceiling))
    return min(_CHOSEN[0], int(ceiling))


def thread_line(chosen: int, given: int | None, cores: int | None = None, load: float | None = None) -> str:
    """The start-up line that says how many threads the run uses and why."""
    if given:
        return f"threads: {chosen} (threads={given})"
    cores = usable_cores() if cores is None else cores
    load = busy_cores() if load is None else load
    return (f"threads: {chosen} (threads= unset: {cores} core(s) here, load {load:.1f} over the last minute; "
            "threads=N sets it)")
