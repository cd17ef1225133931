"""The `grue` command. Thin: parse `key=value` arguments, call into the `grue` package.

    grue tasks                                   the seven tasks, their data, models, metrics
    grue algos                                   the algorithms: what each trains and reads
    grue config task=imdb algo=nlpo              the fully resolved config
    grue plan task=imdb model.lora.rank=16       estimated peak memory per device, before a run
    grue run task=imdb algo=nlpo seed=0          train + evaluate one run (resumes when interrupted)
    grue eval task=imdb model=runs/<run>         evaluate any run directory or model reference
    grue score task=imdb predictions=p.jsonl     score generations made elsewhere
    grue rescore run=runs/<run>                  a finished run scored again with the current metric code
    grue fetch task=imdb                         pre-download a task's models and data (hub access)
    grue leaderboard export format=md            tables from finished runs
    grue compare runs paper                      two result sets side by side, with significance
    grue sweep task=imdb algo=ppo,nlpo seed=0,1  a grid of runs: resumable, per-cell logs, board at the end
    grue demo                                    the mini IMDB demo `make demo` runs (zero-shot, PPO)
"""
from __future__ import annotations

import os
import sys
from typing import Optional

import typer

from grue.commands.plugin_help import PluginHelpCommand, PluginHelpGroup

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Keep the terminal for grue's own progress display: no per-file load reports or weight-loading bars.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

# rich_markup_mode=None: help texts are shown as written, so `[split=test]` is not eaten as Rich markup.
app = typer.Typer(cls=PluginHelpGroup, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="Train and score language models on the GRUE benchmark (RL4LMs / NLPO).")
ArgList = Optional[list[str]]
PAIRS = typer.Argument(None, help="key=value config overrides, e.g. task=imdb algo=nlpo seed=0 profile=mini; "
                                  "`grue config` prints every key with its value")


def _load(args: ArgList):
    from grue.config import load_config

    return load_config(args or [], refuse_unread=True)  # a ConfigError becomes one line in GrueGroup


@app.command(cls=PluginHelpCommand)
def tasks() -> None:
    """List the tasks: the seven GRUE tasks, task files (task=path, GRUE_TASKS_PATH) and plugin tasks, with
    data per profile, backbone, metrics, rewards, whether they run, and where each came from."""
    from grue.commands.tasks import print_tasks

    print_tasks()


@app.command(cls=PluginHelpCommand)
def algos() -> None:
    """List the registered algorithms: what each trains, the config groups it reads, its warm start."""
    from grue.commands.algos import print_algorithms

    print_algorithms()


@app.command()
def config(args: ArgList = PAIRS,
           all_groups: bool = typer.Option(False, "--all-groups",
                                           help="Also print the groups of other algorithms, which this run does not "
                                                "read."),
           origins: bool = typer.Option(False, "--origins",
                                        help="Follow each value with a comment saying where it came from: default, "
                                             "task, inherited task, profile, algorithm preset, variant, command "
                                             "line.")) -> None:
    """Print the fully resolved config and its hash: grue config [any config key=value].

    Every key printed can be set as key=value on grue config, run, eval, score, fetch, demo and sweep. Only
    the groups the chosen algorithm reads are printed (--all-groups prints the others' too). --origins
    says after each value which layer set it.
    """
    from grue.commands.config_origins import config_with_origins
    from grue.config import config_hash, to_yaml

    cfg, annotated, note = config_with_origins(args or [], all_groups)
    from grue.extend.early_check import check_code_shapes

    check_code_shapes(cfg)  # a python: metric or reward tried on a few of the task's records (no model)
    typer.echo(annotated if origins else to_yaml(cfg, every_group=all_groups).rstrip())
    typer.echo(f"# config_hash: {config_hash(cfg)}")
    if note:
        typer.secho(note, fg=typer.colors.YELLOW, err=True)
    from grue.commands.config_truncation import truncation_preview

    cut = truncation_preview(cfg)  # a task file with its data on disk: what model.max_prompt_length cuts
    if cut:
        typer.secho(cut, fg=typer.colors.YELLOW if "cut to" in cut else None, err=True)
    from grue.commands.algos import regulariser_line

    typer.echo(regulariser_line(cfg))


@app.command()
def plan(args: ArgList = PAIRS) -> None:
    """Estimate a run's peak memory per device before it starts: grue plan task=TASK algo=ALGO [any config key=value].

    Counts the models' weights, gradients and AdamW moments, the update's activations and the rest for the
    chosen model, precision (model.dtype, model.mixed_precision), LoRA (model.lora.rank), gradient
    checkpointing and sharding (num_processes, shard). No weights are loaded."""
    from grue.commands.plan import plan_command

    plan_command(args or [])


@app.command(cls=PluginHelpCommand)
def run(args: ArgList = PAIRS) -> None:
    """Train and evaluate one run: grue run task=TASK|path/to/task.yaml algo=ALGO seed=N [profile=paper|mini] [any config key=value].

    Running the same command again resumes or reuses it. `grue config` lists every key.
    """
    from grue.commands.run import run_command
    from grue.config import load_config
    from grue.config.read_groups import unread_settings_note

    # A run's command line is often shared with other algorithms' runs (a shell loop over algo=...): a setting
    # this algorithm does not read is said once here, not refused (grue config and plan refuse it).
    from grue.commands.config_origins import inherit_note_of

    cfg = load_config(args or [])
    note = unread_settings_note(args or [], cfg.algo)
    if note:
        typer.secho(f"note: {note}", fg=typer.colors.YELLOW, err=True)
    inherited = inherit_note_of(args or [], cfg)
    if inherited:
        typer.secho(inherited, fg=typer.colors.YELLOW, err=True)
    run_command(args or [], cfg)


@app.command("eval")
def evaluate(args: ArgList = PAIRS) -> None:
    """Evaluate a run directory or any model.

    grue eval model=RUN_DIR|MODEL [split=val|test|all] [task=TASK] [profile=paper|mini] [any config key=value]
    """
    from grue.commands.evaluate import eval_command

    eval_command(args or [])


@app.command()
def score(args: ArgList = PAIRS,
          allow_partial: bool = typer.Option(False, "--allow-partial",
                                             help="Score a file that covers only part of the split; it is "
                                                  "marked partial and the leaderboard leaves it out.")) -> None:
    """Score generations made elsewhere.

    grue score task=TASK predictions=FILE.jsonl [split=test|val|none] [metrics=a,b] [out=FILE.json]
    [profile=paper|mini] [algo=ALGO seed=N: the board row the file stands in, default zero_shot, 0]
    [any config key=value]. One JSON object per line: id, generation, optional
    references, prompt, meta. Default out= is the predictions file with .results.json. Lines whose ids are
    no split's but carry their references are scored as your own data (split=none): not a submission.
    """
    from grue.commands.score import score_command

    score_command(args or [], allow_partial)


@app.command()
def rescore(args: ArgList = PAIRS) -> None:
    """Score a finished run's saved generations with the current code of its python: metric files.

    grue rescore run=RUN_DIR [threads=N] [device=cpu]. Writes the run of the current setting (the old run's
    model, logs and generations, new scores) beside the old one, which keeps its results; refused when a
    reward or loader file changed (the training would differ: `grue run` makes a new run).
    """
    from grue.commands.rescore import rescore_command

    rescore_command(args or [])


@app.command()
def fetch(args: ArgList = PAIRS) -> None:
    """Download a task's models and data into the hub cache, for offline compute nodes.

    grue fetch task=TASK [profile=paper|mini] [any config key=value naming models or data]
    """
    from grue.commands.fetch import fetch_command

    fetch_command(_load(args))


@app.command()
def demo(args: ArgList = PAIRS) -> None:
    """The mini-profile IMDB demo: zero-shot and PPO runs, the board, and where everything went.

    grue demo [output_dir=DIR] [any config key=value]
    """
    from grue.commands.demo import demo_command

    demo_command(args or [])


def _mount_subapps() -> None:
    from grue.commands.compare import compare
    from grue.commands.human import human_app
    from grue.commands.leaderboard import leaderboard_app
    from grue.commands.sweep import sweep

    app.add_typer(leaderboard_app, name="leaderboard")
    app.add_typer(human_app, name="human")
    app.command("compare")(compare)
    app.command("sweep")(sweep)
    from grue.commands.label import label_app  # learned rewards' comparisons (docs/learned_rewards.md)
    app.add_typer(label_app, name="label")


_mount_subapps()


def main() -> None:
    app(prog_name="grue")


if __name__ == "__main__":
    sys.exit(main())
