"""`grue sweep`: a grid of runs, resumable, with per-cell logs and the leaderboard at the end.

    grue sweep task=imdb,commongen algo=ppo,nlpo seed=0,1,2 reward=meteor,rouge1 profile=mini
    grue sweep task=all algo=all seed=0,1,2,3,4 --dry-run
    grue sweep task=imdb algo=nlpo seed=0,1,2 --remake-stale   remake runs made before a fix that changes their numbers
    grue sweep task=imdb profile=mini seed=0,1 --grid algo=zero_shot --grid "algo=ppo reward=learned reward.labels=100,400"
                                       a union of grids: the arguments above, with each --grid in turn
    grue sweep ... --jobs 4 --devices 0,1,2,3          local, four cells at a time, one GPU each
    grue sweep ... --launcher slurm --slurm-partition gpu --gpus-per-node 1 --timeout-min 720
"""
from __future__ import annotations

from typing import Optional

import typer

from grue.commands.errors import fail
from grue.runtime.console import console

LAUNCHERS = ("local", "slurm", "submitit-local")


def sweep(
    args: Optional[list[str]] = typer.Argument(None, help="key=value or key=a,b,c (task=all and algo=all too)"),
    grids: Optional[list[str]] = typer.Option(None, "--grid", help="One grid of a union: space-separated key=value "
                                              "arguments added to the others; repeat for each grid."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the cells and what is already done; run nothing."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Run failed cells again."),
    remake_stale: bool = typer.Option(False, "--remake-stale", help="Make again the complete cells made before a fix "
                                      "that changes their numbers (grue/results/revisions.py); each old run moves "
                                      "into the sweep's books (replaced/), where no board counts it."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Cells at once (local), or SLURM array parallelism."),
    launcher: str = typer.Option("local", "--launcher", help="local | slurm | submitit-local"),
    devices: str = typer.Option("", "--devices", help="GPUs for local jobs, one per running cell: 0,1,2,3"),
    slurm_partition: Optional[str] = typer.Option(None, "--slurm-partition"),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", min=0),
    cpus_per_task: Optional[int] = typer.Option(None, "--cpus-per-task", min=1),
    mem_gb: Optional[int] = typer.Option(None, "--mem-gb", min=1),
    timeout_min: int = typer.Option(24 * 60, "--timeout-min", min=1, help="SLURM time limit per cell."),
    export: bool = typer.Option(True, "--export/--no-export", help="Write the sweep's leaderboard at the end."),
) -> None:
    """Run a grid of `grue run` cells; the same command again skips done cells and resumes the rest."""
    from grue.run.preflight import PreflightError
    from grue.run.signals import Terminated, sigterm_as_interrupt
    from grue.sweep.grid import SweepError
    from grue.sweep.orchestrate import describe, execute, plan, preflight_cells
    from grue.sweep.orchestrate import export as export_board

    if launcher not in LAUNCHERS:
        fail(f"unknown launcher {launcher!r}; one of {', '.join(LAUNCHERS)}")
    try:
        grid = plan(args or [], grids or ())
    except (SweepError, ValueError) as err:
        fail(str(err))
    for line in describe(grid, retry_failed, remake_stale):
        typer.echo(line)
    if dry_run:
        return
    todo = grid.todo(retry_failed, remake_stale)
    try:
        for warning in preflight_cells(todo):
            console.print(f"[yellow]\\[sweep] warning: {warning}[/]", soft_wrap=True)
    except PreflightError as err:
        fail(str(err))
    runner = _launcher(launcher, grid.books.root, jobs, devices, slurm_partition, gpus_per_node, cpus_per_task,
                       mem_gb, timeout_min)
    try:
        with sigterm_as_interrupt():  # passed on to the running cells (grue.sweep.launch)
            outcome = execute(grid, runner, retry_failed, typer.echo, remake_stale)
    except KeyboardInterrupt as err:
        typer.echo(f"[sweep] interrupted; the cells that were running record themselves as interrupted; the same "
                   "command resumes the sweep", err=True)
        raise typer.Exit(code=143 if isinstance(err, Terminated) else 130) from None
    failed = [c for c in grid.cells
              if c.hash not in grid.refused and outcome.get(c.hash, grid.states[c.hash].status) != "complete"]
    if export:
        out, text = export_board(grid)
        typer.echo(text)
        typer.echo(f"[sweep] leaderboard of this sweep written to {out}")
    if grid.refused:
        typer.echo(f"[sweep] {len(grid.refused)} of {len(grid.cells)} cell(s) refused before any work: their lines "
                   "above say what each needs; the same command runs them once it is set", err=True)
    if failed:
        typer.echo(f"[sweep] {len(failed)} of {len(grid.cells)} cell(s) not complete; their errors are above, their "
                   f"logs in {grid.books.root / 'logs'}; `--retry-failed` runs failed ones again", err=True)
    if failed or grid.refused:
        raise typer.Exit(code=1)


def _launcher(kind: str, root, jobs: int, devices: str, partition, gpus, cpus, mem_gb, timeout_min):
    from grue.sweep.launch import LocalLauncher, SubmititLauncher

    if kind == "local":
        return LocalLauncher(jobs, [d for d in devices.split(",") if d.strip()])
    cluster = "slurm" if kind == "slurm" else "local"
    params = {"timeout_min": timeout_min, "slurm_partition": partition, "gpus_per_node": gpus,
              "cpus_per_task": cpus, "mem_gb": mem_gb, "name": "grue"}
    if cluster == "local":  # submitit's local executor takes the generic parameters only
        params = {"timeout_min": timeout_min, "gpus_per_node": gpus, "cpus_per_task": cpus, "mem_gb": mem_gb}
    threads = (cpus or 1) if cluster == "local" else cpus  # local jobs share this machine's cores
    return SubmititLauncher(root / "submitit", cluster, jobs, threads=threads, **params)
