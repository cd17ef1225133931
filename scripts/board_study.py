"""Issue 46's board study: the GRUE board of today's methods on the mini profile, resumable cell by cell.

    python scripts/board_study.py --out docs/studies/grue_board_mini [--tasks commongen] [--dry-run]
    grue leaderboard export runs=docs/studies/grue_board_mini format=md     # the board page

The three tasks whose mini data are real (IMDB, CommonGen, DailyDialog) run every method below over seeds 0-2;
the four whose mini data are synthetic (ToTTo, WMT16, CNN/DailyMail, NarrativeQA) one seed, as a machinery
check. Every method runs at its mini preset: the task's PPO budget in generated tokens and PPO's regulariser
(the fairness presets), so the board's equal-token check holds. DPO makes its comparisons file from the task's
reward (`dpo.comparisons=auto`, the mini default). Distillation's teacher is the supervised run of the same
task and seed in the same folder (the `distill` preset's `grpo.teacher.model=supervised`, grue/run/teacher_runs.py),
so it is a cell of the same sweep. Typing the same command again runs only what is missing (a finished run has a
valid results.json); a supervised run committed without its weights is trained again when a warm start or a
distillation needs them. `--reuse
FOLDER...` first copies in the finished runs of earlier studies whose config hash is one of this study's cells
(their results, config, logs and predictions; not their weights), so a cell run before is not run again.

A finished cell made before a fix that changes its algorithm's numbers (a numbered revision,
grue/results/revisions.py) is still complete: `--dry-run` marks it "made before revision N", the board page's
Code versions notes name its row, and `--remake-stale` makes it again with today's code, moving the old run into
the sweep's books (`sweeps/<hash>/replaced/`) where no board counts it. (The study's NLPO and Supervised+NLPO
cells on the real tasks were remade before that flag existed, by deleting their folders.)
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

REAL = ("imdb", "commongen", "dailydialog")
SYNTHETIC = ("totto", "wmt16", "cnn_dailymail", "narrativeqa")
METHODS = ("zero_shot", "supervised", "ppo", "nlpo", "supervised_ppo", "supervised_nlpo", "grpo", "rloo",
           "reinforce_pp", "reinforce_pp_baseline", "dpo", "best_of_n", "dapo", "gspo", "cispo", "gdpo", "distill")
# DPO's answers per pass within a step (not hashed: memory only), as the mini preset now sets it too. CNN/DM's 16
# answers x 4 candidates of up to 208 tokens in one pass were killed for memory at 21 GB on a 24 GiB machine.
DPO_MICRO_BATCH = 4
ROOT = Path(__file__).resolve().parents[1]


def grue(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "cli.py"), *args]


def sweep(out: Path, tasks: list[str], seeds: str, threads: int, dry_run: bool,
          remake_stale: bool = False) -> list[str]:
    return grue("sweep", f"task={','.join(tasks)}", "profile=mini", f"seed={seeds}", f"threads={threads}",
                f"output_dir={out}", f"algo={','.join(METHODS)}", f"dpo.micro_batch_size={DPO_MICRO_BATCH}",
                *(["--dry-run"] if dry_run else []), *(["--remake-stale"] if remake_stale else []))


def reuse(out: Path, folders: list[Path], tasks: list[str], seeds: tuple[int, ...]) -> int:
    """Copy in the finished runs of `folders` whose config hash is a cell of this study's sweep; how many."""
    from grue.sweep.grid import expand

    args = [f"task={','.join(tasks)}", "profile=mini", f"seed={','.join(map(str, seeds))}", f"algo={','.join(METHODS)}"]
    wanted = {cell.hash for cell in expand(args)}
    copied = 0
    for folder in folders:
        for results in sorted(folder.glob("*/results.json")):
            run = results.parent
            if json.loads(results.read_text()).get("config_hash") not in wanted or (out / run.name).exists():
                continue
            shutil.copytree(run, out / run.name, ignore=shutil.ignore_patterns("model", "checkpoints", "*.lock"))
            copied += 1
    return copied


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="the study folder (resumable)")
    parser.add_argument("--tasks", nargs="*", default=[*REAL, *SYNTHETIC])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reuse", nargs="*", type=Path, default=[],
                        help="earlier study folders whose runs of the same config hash count as done here")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--remake-stale", action="store_true",
                        help="make again the finished cells made before a fix that changes their numbers")
    args = parser.parse_args()
    real = [t for t in args.tasks if t in REAL]
    synthetic = [t for t in args.tasks if t in SYNTHETIC]
    failed = 0
    for tasks, seeds in ((real, (0, 1, 2)), (synthetic, (0,))):
        if not tasks:
            continue
        if args.reuse and not args.dry_run:
            args.out.mkdir(parents=True, exist_ok=True)
            print(f"[board study] copied in {reuse(args.out, args.reuse, tasks, seeds)} finished run(s) of the same "
                  "config hash", flush=True)
        failed |= subprocess.call(sweep(args.out, tasks, ",".join(map(str, seeds)), args.threads, args.dry_run,
                                           args.remake_stale))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
