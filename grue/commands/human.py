"""`grue human ...`: human studies. Thin: parse key=value arguments, call into grue.human.

    grue human make-study kind=ratings task=imdb runs=runs samples=100 raters=3 out=studies/imdb
    grue human serve study=studies/imdb [--host 0.0.0.0] [--port 8000]
    grue human report study=studies/imdb [qualify=yes] [alpha_level=interval]
    grue human export study=studies/imdb out=batch.csv
    grue human import study=studies/imdb results=batch_results.csv
    grue human export-comparisons study=studies/cmp out=comparisons.jsonl [qualify=yes] [min_seconds=3]
    grue human board studies=studies/imdb,studies/cnn [out=leaderboard/export/site]
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from grue.commands.errors import fail
from grue.commands.leaderboard import parse_pairs

human_app = typer.Typer(help="Human studies: rate or compare generations, import crowd results, analyse.",
                        no_args_is_help=True)
Pairs = Optional[list[str]]


def _options(args: Pairs, allowed: set[str]) -> dict[str, str]:
    try:
        return parse_pairs(args or [], allowed)
    except typer.BadParameter as err:
        fail(str(err))


def _number(options: dict[str, str], key: str, default: int | None) -> int | None:
    if key not in options:
        return default
    try:
        value = int(options[key])
    except ValueError:
        fail(f"{key}={options[key]!r} is not a whole number")
    if value < 0:
        fail(f"{key}={value} must not be negative")
    return value


def _study(options: dict[str, str]):
    from grue.human.study import StudyError, load_study

    if "study" not in options:
        fail("study=DIR is required")
    try:
        return load_study(Path(options["study"]))
    except StudyError as err:
        fail(str(err))


@human_app.callback()
def human() -> None:
    """Human studies (a group, so subcommands keep their names)."""


@human_app.command("make-study")
def make_study_command(args: Pairs = typer.Argument(None, help=(
        "kind=ratings|comparisons task=NAME runs=DIR[,DIR] [algos=a,b] [samples=N (paper's size)] "
        "[raters=3 per item] [pool=N raters] [gold=2 attention checks] [seed=0] out=DIR"))) -> None:
    """Sample the same test prompts from one run per algorithm and write a study with per-rater links."""
    from grue.human.make_study import StudyRequest, make_study
    from grue.human.study import KINDS, StudyError

    options = _options(args, {"kind", "task", "runs", "algos", "samples", "raters", "pool", "gold",
                                       "seed", "out"})
    for key in ("kind", "task", "out"):
        if key not in options:
            fail(f"{key}= is required")
    if options["kind"] not in KINDS:
        fail(f"kind={options['kind']!r}: use {'|'.join(KINDS)}")
    request = StudyRequest(
        kind=options["kind"], task=options["task"],
        runs=tuple(Path(p) for p in options.get("runs", "runs").split(",") if p),
        algos=tuple(a for a in options.get("algos", "").split(",") if a),
        samples=_number(options, "samples", None), raters_per_item=_number(options, "raters", 3),
        pool=_number(options, "pool", None), gold=_number(options, "gold", 2), seed=_number(options, "seed", 0))
    try:
        study, tokens = make_study(Path(options["out"]), request)
    except (StudyError, ValueError) as err:
        fail(str(err))
    typer.echo(f"wrote {study.kind} study {study.root}: {len(study.judged_items())} items, "
               f"{len(study.items) - len(study.judged_items())} attention checks, {len(tokens)} raters")
    typer.echo(f"rater links (secret, one per rater): {study.root / 'links.txt'}; "
               f"start the app with `grue human serve study={study.root}`")


@human_app.command("serve")
def serve_command(
    args: Pairs = typer.Argument(None, help="study=DIR"),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on; 0.0.0.0 for raters elsewhere."),
    port: int = typer.Option(8000, "--port", help="Port (0: any free one)."),
) -> None:
    """Serve the rating/comparison app until Ctrl-C; prints each rater's link."""
    from grue.human.serve import serve

    study = _study(_options(args, {"study"}))
    try:
        serve(study.root, host, port, typer.echo)
    except OSError as err:
        fail(f"cannot listen on {host}:{port}: {err}")


@human_app.command("report")
def report_command(args: Pairs = typer.Argument(None, help=(
        "study=DIR [qualify=yes|no] [min_seconds=3 (qualification: median seconds per item)] "
        "[alpha_level=interval|ordinal|nominal|ratio] [out=DIR (study/report)]"))) -> None:
    """The study's statistics: per-system means and alpha, ANOVA and Tukey HSD, or win rates."""
    from grue.human.agreement import LEVELS
    from grue.human.report import build_report, render_html, render_markdown, to_json
    from grue.storage.atomic import atomic_write_json, atomic_write_text

    options = _options(args, {"study", "qualify", "min_seconds", "alpha_level", "out"})
    study = _study(options)
    qualify = options.get("qualify", "no")
    level = options.get("alpha_level", "interval")
    if qualify not in ("yes", "no"):
        fail(f"qualify={qualify!r}: use yes|no")
    if level not in LEVELS:
        fail(f"alpha_level={level!r}: use {'|'.join(LEVELS)}")
    rules = _rules(options)
    report = build_report(study, qualify=qualify == "yes", rules=rules, level=level)
    out = Path(options.get("out", study.root / "report"))
    out.mkdir(parents=True, exist_ok=True)
    text = render_markdown(report)
    atomic_write_text(out / "report.md", text)
    atomic_write_text(out / "report.html", render_html(report))
    atomic_write_json(out / "report.json", to_json(report))
    typer.echo(text)
    typer.echo(f"wrote {out / 'report.md'}, {out / 'report.html'}, {out / 'report.json'}")


def _rules(options: dict[str, str]):
    """The qualification rules, with `min_seconds=` (the median reading time a rater needs) if given."""
    from grue.human.qualification import Rules

    try:
        return Rules(min_median_seconds=float(options.get("min_seconds", Rules.min_median_seconds)))
    except ValueError:
        fail(f"min_seconds={options['min_seconds']!r} is not a number")


@human_app.command("export")
def export_command(args: Pairs = typer.Argument(None, help="study=DIR out=FILE.csv")) -> None:
    """Write the study as a crowdsourcing batch CSV: one row per assignment, the item's fields as columns."""
    from grue.human.crowd_export import batch_csv
    from grue.storage.atomic import atomic_write_text

    options = _options(args, {"study", "out"})
    study = _study(options)
    if "out" not in options:
        fail("out=FILE.csv is required")
    atomic_write_text(Path(options["out"]), batch_csv(study))
    typer.echo(f"wrote {options['out']}: {len(study.items) * study.raters_per_item} assignments; "
               "import the platform's results with `grue human import`")


@human_app.command("import")
def import_command(args: Pairs = typer.Argument(None, help="study=DIR results=FILE.csv [platform=mturk]")) -> None:
    """Add a platform's results CSV to the study's answers (all rows or none)."""
    from grue.human.crowd_import import ImportRefused, import_results

    options = _options(args, {"study", "results", "platform"})
    study = _study(options)
    if "results" not in options:
        fail("results=FILE.csv is required")
    try:
        stored = import_results(study, Path(options["results"]), options.get("platform", "mturk"))
    except ImportRefused as err:
        fail(str(err))
    typer.echo(f"imported {stored} answers into {study.db_path}")


@human_app.command("export-comparisons")
def export_comparisons_command(args: Pairs = typer.Argument(None, help=(
        "study=DIR out=comparisons.jsonl [qualify=yes|no] [min_seconds=S] (the report's qualification rules)"))) -> None:
    """Append a comparisons study's answers to a learned-reward comparisons file (docs/learned_rewards.md)."""
    from grue.human.comparisons_export import export_comparisons
    from grue.human.frame import choices_frame
    from grue.human.qualification import unqualified
    from grue.human.study import StudyError

    options = _options(args, {"study", "out", "qualify", "min_seconds"})
    study = _study(options)
    if "out" not in options:
        fail("out=FILE.jsonl is required")
    if options.get("qualify", "no") not in ("yes", "no"):
        fail(f"qualify={options['qualify']!r}: use yes|no")
    excluded = set(unqualified(choices_frame(study), "comparisons", _rules(options))) \
        if options.get("qualify") == "yes" and study.kind == "comparisons" else set()
    try:
        written = export_comparisons(study, Path(options["out"]), excluded)
    except StudyError as err:
        fail(str(err))
    typer.echo(f"appended {written} comparisons to {options['out']}"
               + (f" ({len(excluded)} unqualified raters left out)" if excluded else ""))


@human_app.command("board")
def board_command(args: Pairs = typer.Argument(None, help="studies=DIR[,DIR] [out=leaderboard/export/site]")) -> None:
    """The leaderboard's human section: Figure 2 (c)-(d), human scores beside the paper's, Table 2 human rows."""
    from grue.human.board_panel import human_section, write_section
    from grue.human.study import StudyError

    options = _options(args, {"studies", "out"})
    if "studies" not in options:
        fail("studies=DIR[,DIR] is required")
    try:
        section = human_section([Path(d) for d in options["studies"].split(",") if d])
    except StudyError as err:
        fail(str(err))
    for path in write_section(section, Path(options.get("out", "leaderboard/export/site"))):
        typer.echo(f"wrote {path}")
