"""The `grue` command. Thin: parse `key=value` arguments, call into the `grue` package.

    grue tasks                                   the seven tasks, their data, models, metrics
    grue config task=imdb algo=nlpo              the fully resolved config
    grue run task=imdb algo=nlpo seed=0          train + evaluate one run (resumes when interrupted)
    grue eval task=imdb model=runs/<run>         evaluate any run directory or model reference
    grue score task=imdb predictions=p.jsonl     score generations made elsewhere
    grue fetch task=imdb                         pre-download a task's models and data (hub access)
    grue leaderboard export format=md            tables from finished runs
    grue compare runs paper                      two result sets side by side, with significance
    grue sweep task=imdb algo=ppo,nlpo seed=0,1  a grid of runs: resumable, per-cell logs, board at the end
    grue demo                                    the mini IMDB demo `make demo` runs
"""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Keep the terminal for grue's own progress display: no per-file load reports or weight-loading bars.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Train and score language models on the GRUE benchmark (RL4LMs / NLPO).")
ArgList = Optional[list[str]]
PAIRS = typer.Argument(None, help="key=value overrides, e.g. task=imdb algo=nlpo seed=0 profile=mini")


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code=2)


def _load(args: ArgList):
    from grue.config import ConfigError, load_config

    try:
        return load_config(args or [])
    except ConfigError as err:
        _fail(str(err))


@app.command()
def tasks() -> None:
    """List the seven GRUE tasks: data per profile, backbone, metrics, rewards, and whether they run."""
    from grue.commands.tasks import print_tasks

    print_tasks()


@app.command()
def config(args: ArgList = PAIRS) -> None:
    """Print the fully resolved config and its hash."""
    from grue.config import config_hash, to_yaml

    cfg = _load(args)
    typer.echo(to_yaml(cfg).rstrip())
    typer.echo(f"# config_hash: {config_hash(cfg)}")


@app.command()
def run(args: ArgList = PAIRS) -> None:
    """Train and evaluate one run. Running the same command again resumes or reuses it."""
    from grue.commands.run import run_command

    run_command(args or [], _load(args), _fail)


@app.command("eval")
def evaluate(args: ArgList = PAIRS) -> None:
    """Evaluate a run directory or any model: grue eval task=imdb model=runs/<run> [split=val|test|all]."""
    from grue.commands.evaluate import eval_command

    eval_command(args or [], _fail)


@app.command()
def score(args: ArgList = PAIRS) -> None:
    """Score generations made elsewhere: grue score task=imdb predictions=preds.jsonl [split=test] [metrics=a,b]."""
    from grue.commands.score import score_command

    score_command(args or [], _fail)


@app.command()
def fetch(args: ArgList = PAIRS) -> None:
    """Download a task's models and data into the hub cache, for offline compute nodes."""
    from grue.commands.fetch import fetch_command

    fetch_command(_load(args), _fail)


@app.command()
def demo(args: ArgList = PAIRS) -> None:
    """The mini-profile IMDB demo: zero-shot and NLPO runs, then the leaderboard table."""
    from grue.commands.demo import demo_command

    demo_command(args or [], _fail)


def _mount_subapps() -> None:
    from grue.commands.compare import compare
    from grue.commands.leaderboard import leaderboard_app
    from grue.commands.sweep import sweep

    app.add_typer(leaderboard_app, name="leaderboard")
    app.command("compare")(compare)
    app.command("sweep")(sweep)


_mount_subapps()


def main() -> None:
    app(prog_name="grue")


if __name__ == "__main__":
    sys.exit(main())
