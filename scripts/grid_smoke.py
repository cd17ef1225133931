"""The whole grid at the smallest budget: every (task, method) cell of `task=all algo=all` on the mini profile
runs through `grue sweep` and must leave a valid results.json and a row on the sweep's board (issue 46).

    python scripts/grid_smoke.py --out /tmp/grid_smoke                  # all 7 tasks x 20 methods, seed 0
    python scripts/grid_smoke.py --out /tmp/grid_smoke --tasks imdb commongen --algos ppo grpo dpo
    python scripts/grid_smoke.py --out /tmp/grid_smoke --dry-run        # the cells and what each would need

It is a machinery check, not a study: budgets are cut to a few prompts and a couple of iterations, so the
scores mean nothing. The cells DPO and distillation need settings of their own get them here in their own
grids: DPO makes its comparisons file from the task's reward (`dpo.comparisons=auto`), distillation takes
the packaged policy itself as teacher (the reverse KL starts at 0: the code path runs, nothing is learnt).
The same command resumes: finished cells are skipped. Prints the wall time and a one-line verdict per
failing cell, and exits 1 if any cell failed or was refused.

Measured: all 140 cells of seed 0 wrote a valid results.json and a row on the sweep's board, in 5,258 s of wall
time on one thread (commit 3d4348e, the other core busy with a benchmark and tests); one cell was first
marked failed by the pruning race fixed since (SETTLE_S), and the same command then found all 140 complete.
Again at commit 7a4896f (the sampler per row, NLPO's mask dropping ended rows): 140/140 at the first try, in
4,971 s of wall time on one thread, the other core running a study; the largest process held 8.3 GB (`/usr/bin/time
-v` around the same command).

Each finished cell keeps ~0.5 GB of weights, and 140 of them fill a laptop's disk (it happened: three cells
died in torch.save). So while the sweep runs, the weights of finished cells are deleted, except those of
supervised runs, which the Supervised+RL cells warm-start from; `--keep-weights` keeps them all.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

# The smallest budget every method accepts: a few prompts, short generations, two RL iterations, one
# supervised epoch, one DPO step, two best-of-n candidates. Settings of a group a cell's method does not
# read are dropped by the sweep itself (grue.sweep.grid), so one list serves every cell.
SMALLEST = ["data.max_train=8", "data.max_val=4", "data.max_test=4",
            "rollout.min_new_tokens=4", "rollout.max_new_tokens=8",
            "generation.min_new_tokens=4", "generation.max_new_tokens=8",
            "ppo.steps_per_update=32", "ppo.total_steps=64", "ppo.rollout_batch_size=4", "ppo.batch_size=16",
            "eval.eval_every=2", "eval.batch_size=4", "supervised.epochs=1", "supervised.batch_size=4",
            "dpo.max_steps=1", "dpo.batch_size=4", "dpo.queries=8", "best_of_n.n=2"]
TEACHER = "packaged:smollm2-135m"


def sweep_command(out: Path, tasks: list[str], algos: list[str], threads: int, dry_run: bool) -> list[str]:
    """One `grue sweep` over a union of grids: the methods that need nothing of their own, DPO with its
    comparisons made from the task's reward, distillation with a teacher."""
    plain = [a for a in algos if a not in ("dpo", "distill")]
    grids = []
    if plain:
        grids.append(f"algo={','.join(plain)}")
    if "dpo" in algos:
        grids.append("algo=dpo dpo.comparisons=auto")
    if "distill" in algos:
        grids.append(f"algo=distill grpo.teacher.model={TEACHER}")
    command = [sys.executable, "-m", "grue", "sweep", f"task={','.join(tasks)}", "profile=mini", "seed=0",
               f"threads={threads}", f"output_dir={out}", *SMALLEST, *(f"--grid={g}" for g in grids)]
    return command + (["--dry-run"] if dry_run else [])


SETTLE_S = 120.0  # a run writes its model cards into model/ just after results.json: leave it that long


def prune_weights(out: Path, settle_s: float = SETTLE_S) -> int:
    """Delete model/ and checkpoints/ of every finished cell under `out` but the supervised ones; how many
    folders went. A cell counts as finished `settle_s` after its results.json appeared (pruning at once
    raced the model card's write into model/ and failed a cell)."""
    from grue.storage import run_layout

    pruned = 0
    for results in out.glob("*/results.json"):
        if time.time() - results.stat().st_mtime < settle_s:
            continue
        if json.loads(results.read_text()).get("algo") == "supervised":
            continue
        for weights in (run_layout.model_dir(results.parent), run_layout.checkpoints_dir(results.parent)):
            if weights.is_dir():
                shutil.rmtree(weights, ignore_errors=True)
                pruned += 1
    return pruned


def prune_while(process: subprocess.Popen, out: Path, every_s: float = 30.0) -> None:
    """Prune finished cells' weights every `every_s` seconds until `process` ends, and once after."""
    while process.poll() is None:
        prune_weights(out)
        time.sleep(every_s)
    prune_weights(out, settle_s=0.0)  # the sweep has ended: nothing is being written


def check_runs(out: Path) -> tuple[list[Path], list[str]]:
    """Every run directory under `out` with its results validated; (valid runs, problems)."""
    from grue.results.schema import validate_results

    valid, problems = [], []
    for results in sorted(out.glob("*/results.json")):
        problem = validate_results(json.loads(results.read_text()))
        (problems.append(f"{results.parent.name}: {problem}") if problem else valid.append(results.parent))
    return valid, problems


def main() -> int:
    from grue.sweep.grid import every_method
    from tasks import task_names

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the sweep's runs directory (resumable)")
    parser.add_argument("--tasks", nargs="*", default=list(task_names()))
    parser.add_argument("--algos", nargs="*", default=list(every_method()))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--keep-weights", action="store_true", help="keep every finished cell's model/")
    args = parser.parse_args()
    start = time.monotonic()
    process = subprocess.Popen(sweep_command(args.out, args.tasks, args.algos, args.threads, args.dry_run))
    if args.dry_run or args.keep_weights:
        code = process.wait()
    else:
        pruner = threading.Thread(target=prune_while, args=(process, args.out), daemon=True)
        pruner.start()
        code = process.wait()
        pruner.join()
    if args.dry_run:
        return code
    valid, problems = check_runs(args.out)
    board = next(iter(sorted((args.out / "sweeps").glob("*/board/*.md"))), None)
    text = board.read_text() if board else ""
    labels = {json.loads((run / "results.json").read_text())["algo"] for run in valid}
    missing = sorted(label for label in labels if f"`{label}`" not in text and label not in text)
    print(f"[grid smoke] {len(valid)} valid run(s), {len(problems)} invalid, board at {board}; "
          f"{time.monotonic() - start:.0f} s wall; sweep exit code {code}")
    for line in problems + [f"not on the board: {label}" for label in missing]:
        print(f"[grid smoke] {line}")
    return 1 if code or problems or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
