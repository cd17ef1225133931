"""`grue leaderboard ...`: build the board from run directories. Thin: parse key=value, call grue.board."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from grue.board.numbers.normalise import MODES
from grue.storage.writable import check_writable_dir

leaderboard_app = typer.Typer(help="Build the GRUE leaderboard from finished runs.", no_args_is_help=True)

DEFAULT_RUNS = "runs"
DEFAULT_OUT = "leaderboard/export"
EXPORT_KEYS = {"format", "out", "runs", "normalisation", "rewards", "split", "paper", "studies", "qualify"}
# The formats and reward strategies are spelt out, not read from grue.board.export and .selection: those load
# pandas, and this module is imported for every `grue` command (tests/cli/test_startup_imports.py checks that
# the words match the board's own lists).
EXPORT_HELP = (
    "key=value arguments: format=md|csv|json|latex|html (comma-separated, default all) out=DIR "
    f"(default {DEFAULT_OUT}) runs=DIR[,DIR...] (default {DEFAULT_RUNS}) normalisation={'|'.join(MODES)} "
    "rewards=select|average split=test|val paper=yes|no studies=DIR[,DIR] (human studies, docs/human.md) "
    "qualify=yes|no (count only raters who pass the studies' qualification rules; default yes)"
)


@leaderboard_app.callback()
def leaderboard() -> None:
    """Build the GRUE leaderboard from finished runs (a group, so subcommands keep their names)."""


def parse_pairs(pairs: list[str], allowed: set[str]) -> dict[str, str]:
    """`key=value` words to a dict; unknown keys are an error that names the allowed ones."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected key=value, got {pair!r}")
        if key not in allowed:
            raise typer.BadParameter(f"unknown key {key!r}; use one of {', '.join(sorted(allowed))}")
        values[key] = value
    return values


def _choice(options: dict[str, str], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = options.get(key, default)
    if value not in allowed:
        raise typer.BadParameter(f"{key}={value!r}: use {'|'.join(allowed)}")
    return value


@leaderboard_app.command("export", help="Export the board. Example: grue leaderboard export format=md,html runs=runs")
def export(args: Optional[list[str]] = typer.Argument(None, help=EXPORT_HELP)) -> None:
    from grue.board.build import BoardOptions
    from grue.board.export import FORMATS, export_board
    from grue.board.numbers.selection import STRATEGIES

    options = parse_pairs(args or [], EXPORT_KEYS)
    formats = [f for f in options.get("format", ",".join(FORMATS)).split(",") if f]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise typer.BadParameter(f"unknown format {', '.join(unknown) or '(none given)'}; use {'|'.join(FORMATS)}")
    board_options = BoardOptions(
        normalisation=_choice(options, "normalisation", MODES, "fixed"),
        rewards=_choice(options, "rewards", STRATEGIES, "select"),
        split=_choice(options, "split", ("test", "val"), "test"),
        with_paper=_choice(options, "paper", ("yes", "no"), "yes") == "yes",
        studies=tuple(p for p in options.get("studies", "").split(",") if p),
        qualify=_choice(options, "qualify", ("yes", "no"), "yes") == "yes",
    )
    runs = [Path(p) for p in options.get("runs", DEFAULT_RUNS).split(",") if p]
    missing = [str(p) for p in runs if not p.is_dir()] or ([] if runs else ["(none given)"])
    if missing:
        raise typer.BadParameter(f"runs={','.join(missing)}: not a directory; give the directory (or directories, "
                                 "comma-separated) your runs were written to (their output_dir=)")
    not_studies = [d for d in board_options.studies if not (Path(d) / "study.json").is_file()]
    if not_studies:
        raise typer.BadParameter(f"studies={','.join(not_studies)}: not a human study (grue human make-study)")
    from grue.human.study import load_study

    for study in board_options.studies:  # a broken study folder is refused before any format is written
        load_study(study)
    from grue.storage.outputs import check_output_dir  # never over the runs or studies read, nor a folder of others'

    check_output_dir(Path(options.get("out", DEFAULT_OUT)), [*runs, *map(Path, board_options.studies)],
                     ("leaderboard.*", "site"))
    board, written = export_board(runs, Path(options.get("out", DEFAULT_OUT)), formats, board_options)
    verified = sum(run.verified for run in board.found.runs)  # added by `grue leaderboard add`
    typer.echo(f"{len(board.found.runs)} run(s) counted" + (f" ({verified} verified)" if verified else "")
               + f", {len(board.found.skipped)} skipped; {'; '.join(board.notes)}")
    for skipped in board.found.skipped:
        typer.echo(f"  skipped {skipped.path}: {'; '.join(skipped.reasons)}")
    for fmt, paths in written.items():
        typer.echo(f"{fmt}: {paths[0]}" + (f" (+{len(paths) - 1} more)" if len(paths) > 1 else ""))


BUNDLE_KEYS = {"out", "weights", "published"}
BUNDLE_HELP = ("run directories or folders of runs, then key=value: out=FILE.tar.gz|DIR (default bundles/; a file "
               "only when the runs hold one setting) weights=yes|no (add each seed's model/; default no) "
               "published=HUB_ID|URL (where the weights can be fetched, recorded in the manifest and model card)")
ADD_KEYS = {"board", "tolerance", "device"}
ADD_HELP = ("bundle file(s), then key=value: board=DIR (its runs/ folder receives the seeds; default .) "
            "tolerance=R (relative difference allowed between a claimed and a re-scored metric; default 0.001, "
            "at least 0.0001 absolute) device=cpu|cuda (where model-based metrics are re-scored; default cpu)")


def _split_words(words: list[str], allowed: set[str]) -> tuple[list[str], dict[str, str]]:
    """Paths, and key=value options (an unknown key is refused, naming the allowed ones)."""
    return [w for w in words if "=" not in w], parse_pairs([w for w in words if "=" in w], allowed)


@leaderboard_app.command("bundle", help="Bundle finished runs for a board, one archive per setting. Example: "
                                        "grue leaderboard bundle runs out=bundles")
def bundle(args: Optional[list[str]] = typer.Argument(None, help=BUNDLE_HELP)) -> None:
    from grue.board.submit.bundle import bundle_runs

    paths, options = _split_words(args or [], BUNDLE_KEYS)
    if not paths:
        raise typer.BadParameter("name the run directories (or a folder of runs) to bundle, e.g. runs")
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        raise typer.BadParameter(f"{', '.join(missing)}: no such run directory or folder")
    weights = _choice(options, "weights", ("yes", "no"), "no") == "yes"
    out = Path(options.get("out", "bundles"))
    from grue.storage.outputs import check_output_dir, check_output_file  # never over a run bundled

    if out.name.endswith((".tar.gz", ".tgz")):
        check_output_file(out, [Path(p) for p in paths])
    else:
        check_output_dir(out, [Path(p) for p in paths], ("*.tar.gz", "*.tgz"))
    written, skipped = bundle_runs([Path(p) for p in paths], out, weights, options.get("published") or None)
    for item in skipped:
        typer.echo(f"  left out {item.path}: {'; '.join(item.reasons)}")
    for item in written:
        s = item.setting
        typer.echo(f"{item.path}: {s['task']} / {s['profile']} / {s['algo']} (setting {s['setting']}), "
                   f"seeds {', '.join(map(str, item.seeds))}, {item.files} files" + (", with weights" if weights else ""))


def _add_device(device: str) -> str:
    """`device=` of `add`: cpu, cuda or cuda:N, and a CUDA device only where this machine has one."""
    import re

    if not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise typer.BadParameter(f"device={device!r}: use cpu, cuda or cuda:N (where model-based metrics are "
                                 "re-scored and weights regenerate a sample)")
    if device != "cpu":
        import torch

        index = int(device.split(":")[1]) if ":" in device else 0
        if not torch.cuda.is_available() or index >= torch.cuda.device_count():
            raise typer.BadParameter(f"device={device}: this machine has no such CUDA device "
                                     f"({torch.cuda.device_count()} visible); use device=cpu")
    return device


@leaderboard_app.command("add", help="Verify a submission bundle and add it to a board. Example: "
                                     "grue leaderboard add imdb-mini-ppo-1a2b3c4d5e6f.grue.tar.gz board=.")
def add(args: Optional[list[str]] = typer.Argument(None, help=ADD_HELP)) -> None:
    from grue.board.submit.install import RUNS, add_bundle
    from grue.board.submit.verify import AS_REPORTED, NOT_REPORTED, Tolerance

    bundles, options = _split_words(args or [], ADD_KEYS)
    if not bundles:
        raise typer.BadParameter("name the bundle to add (written by `grue leaderboard bundle`)")
    missing = [b for b in bundles if not Path(b).is_file()]
    if missing:
        raise typer.BadParameter(f"{', '.join(missing)}: no such bundle file (`grue leaderboard bundle` writes them)")
    try:
        relative = float(options.get("tolerance", "0.001"))
    except ValueError:
        relative = -1.0
    if not (0 <= relative < 1):
        raise typer.BadParameter(f"tolerance={options['tolerance']!r}: a relative difference in [0, 1), e.g. 0.001")
    tolerance = Tolerance(relative=relative)
    device = _add_device(options.get("device", "cpu"))
    board = Path(options.get("board", "."))
    refused = False
    for name in bundles:
        added = add_bundle(Path(name), board, tolerance, device)
        if not added.accepted:
            refused = True
            typer.echo(f"refused {name}: {len(added.problems)} problem(s); the board is unchanged", err=True)
            for problem in added.problems:
                typer.echo(f"  {problem}", err=True)
            continue
        typer.echo(f"verified {name} ({tolerance.describe()}); added to {board / RUNS}:")
        for seed, path in zip(added.verdict.seeds, added.runs):
            records = [(f"{split} {metric}", r) for split, metrics in seed.metrics.items() for metric, r in metrics.items()]
            typer.echo(f"  {path.name}: {sum(r['status'] == 're-scored' for _, r in records)} metric value(s) "
                       "re-scored within the tolerance")
            reasons: dict[str, list[str]] = {}
            for name, r in records:
                if r["status"] == AS_REPORTED:
                    reasons.setdefault(r["why"], []).append(name)
            for why, names in reasons.items():
                typer.echo(f"    as reported: {', '.join(names)} ({why})")
            unreported = [f"{name} {r['rescored']:.4g}" for name, r in records if r["status"] == NOT_REPORTED]
            if unreported:
                typer.echo(f"    not reported by the run, re-scored here: {', '.join(unreported)}")
            from grue.board.submit.claims import row_labels

            for label in row_labels(seed.claims):  # what it claims against what it is (submit/claims.py)
                typer.echo(f"    labelled: {label}")
    if refused:
        raise typer.Exit(2)
