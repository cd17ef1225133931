"""Wall time of the commands that should answer at once (issue 42): each run `--runs` times in a fresh process,
the median printed per command. A benchmark, not a test: it asserts nothing (the machine's load moves the
numbers; tests/cli/test_startup_imports.py checks what these commands import). Targets on 2 idle cores:
`--help` and `algos` <= 0.5 s, `tasks` and `config` <= 1 s.

    .venv/bin/python scripts/bench_cli_startup.py                     this checkout
    .venv/bin/python scripts/bench_cli_startup.py --repo /tmp/before  another one (e.g. `git archive REV` unpacked)

The load average and core count are printed beside the table: a number measured on a busy machine says so.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = (
    ("grue --help", ["--help"]),
    ("grue algos", ["algos"]),
    ("grue tasks", ["tasks"]),
    ("grue config task=imdb profile=mini algo=ppo", ["config", "task=imdb", "profile=mini", "algo=ppo"]),
    ("grue sweep ... --dry-run", ["sweep", "task=imdb", "algo=ppo,zero_shot", "seed=0", "profile=mini", "--dry-run"]),
)
# What the `grue` entry point runs, with the checkout under test first on the path (ahead of an editable install).
LAUNCH = "import sys, cli; sys.argv[0] = 'grue'; cli.main()"


def wall_time(args: list[str], repo: Path, cwd: Path) -> float:
    """Seconds from process start to exit; a command that fails is reported, since its time would mislead."""
    env = {**os.environ, "PYTHONPATH": str(repo), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCH, *args], cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"grue {' '.join(args)} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return seconds


def measure(repo: Path, runs: int) -> list[tuple[str, list[float]]]:
    """Every command `runs` times, interleaved, so a burst of load on the machine spreads over all of them."""
    times: dict[str, list[float]] = {label: [] for label, _ in COMMANDS}
    with tempfile.TemporaryDirectory() as cwd:  # a dry run writes nothing, but never into a checkout
        wall_time(["--help"], repo, Path(cwd))  # warm the file cache and the bytecode: not part of the numbers
        for _ in range(runs):
            for label, args in COMMANDS:
                times[label].append(wall_time(args, repo, Path(cwd)))
    return list(times.items())


def table(rows: list[tuple[str, list[float]]]) -> str:
    width = max(len(label) for label, _ in rows)
    lines = [f"{'command':<{width}}  median s  min s  max s", "-" * (width + 24)]
    lines += [f"{label:<{width}}  {statistics.median(t):>8.2f}  {min(t):>5.2f}  {max(t):>5.2f}" for label, t in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout to time (default: this one)")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per command (default 5)")
    options = parser.parse_args()
    rows = measure(options.repo.resolve(), options.runs)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{options.repo.resolve()}: median of {options.runs} fresh processes; {os.cpu_count()} cores, "
          f"load average {load} (1, 5, 15 min)")
    print(table(rows))


if __name__ == "__main__":
    main()
