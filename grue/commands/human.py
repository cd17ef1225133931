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

import socket
from pathlib import Path
from typing import Optional

import typer

from grue.commands.arguments import choice, finite_number, own_pairs, required, whole_number
from grue.commands.errors import GrueGroup, UsageError, fail

human_app = typer.Typer(cls=GrueGroup, help="Human studies: rate or compare generations, import crowd results, "
                        "analyse.", no_args_is_help=True)
Pairs = Optional[list[str]]


def _options(args: Pairs, allowed: set[str]) -> dict[str, str]:
    return own_pairs(args, allowed)


def _number(options: dict[str, str], key: str, default: int | None, minimum: int = 0) -> int | None:
    return whole_number(options, key, default, minimum)


def _study(options: dict[str, str]):
    from grue.human.study import load_study

    if not options.get("study"):
        fail("study=DIR is required")
    return load_study(Path(options["study"]))  # a StudyError is one line (GrueGroup)


def _out_file(options: dict[str, str], study, example: str) -> Path:
    """`out=`, refused when it is one of the study's own files or folder (the answers, the items)."""
    from grue.storage.outputs import check_output_file

    if not options.get("out"):
        fail(f"out={example} is required")
    out = Path(options["out"])
    check_output_file(out, study.files)
    return out


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
        samples=_number(options, "samples", None, minimum=1), raters_per_item=_number(options, "raters", 3, minimum=1),
        pool=_number(options, "pool", None, minimum=1), gold=_number(options, "gold", 2),
        seed=_number(options, "seed", 0))
    try:
        study, tokens = make_study(Path(options["out"]), request)
    except (StudyError, ValueError) as err:
        fail(str(err))
    typer.echo(f"wrote {study.kind} study {study.root}: {len(study.judged_items())} items, "
               f"{len(study.items) - len(study.judged_items())} attention checks, {len(tokens)} raters")
    typer.echo(f"rater links (secret, one per rater): {study.root / 'links.txt'}; "
               f"start the app with `grue human serve study={study.root}`")


def _listen_address(host: str, port: int) -> None:
    """Refuse a host this machine cannot listen on before the server starts (a port is range-checked
    by its option)."""
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError, ValueError) as err:
        raise UsageError(f"--host {host!r} is not an address or name of an interface here ({err}); use "
                         "127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces)") from None


@human_app.command("serve")
def serve_command(
    args: Pairs = typer.Argument(None, help="study=DIR"),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on; 0.0.0.0 for raters elsewhere."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port 1-65535 (0: any free one)."),
) -> None:
    """Serve the rating/comparison app until Ctrl-C; prints each rater's link."""
    from grue.human.serve import rater_links, serve

    study = _study(_options(args, {"study"}))
    rater_links(study.root)  # a missing or malformed links file is named before anything listens
    _listen_address(host, port)
    try:
        serve(study.root, host, port, typer.echo)
    except (OSError, OverflowError, ValueError) as err:
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
    qualify = choice(options, "qualify", ("yes", "no"), "no")
    level = choice(options, "alpha_level", tuple(LEVELS), "interval")
    rules = _rules(options)
    out = Path(options.get("out") or study.root / "report")
    _check_report_dir(out, study)
    report = build_report(study, qualify=qualify == "yes", rules=rules, level=level)
    out.mkdir(parents=True, exist_ok=True)
    text = render_markdown(report)
    atomic_write_text(out / "report.md", text)
    atomic_write_text(out / "report.html", render_html(report))
    atomic_write_json(out / "report.json", to_json(report))
    typer.echo(text)
    typer.echo(f"wrote {out / 'report.md'}, {out / 'report.html'}, {out / 'report.json'}")


def _check_report_dir(out: Path, study) -> None:
    """The report folder: new, empty, or one a report was written to before (it holds report.json);
    never the study folder, one holding it, or a folder of other files (report.md would replace theirs)."""
    from grue.storage.outputs import check_output_dir

    check_output_dir(out, study.files, "report.json")


def _rules(options: dict[str, str]):
    """The qualification rules, with `min_seconds=` (the median reading time a rater needs) if given."""
    from grue.human.qualification import Rules

    return Rules(min_median_seconds=finite_number(options, "min_seconds", Rules.min_median_seconds))


@human_app.command("export")
def export_command(args: Pairs = typer.Argument(None, help="study=DIR out=FILE.csv")) -> None:
    """Write the study as a crowdsourcing batch CSV: one row per item, the item's fields as columns."""
    from grue.human.crowd_export import batch_csv
    from grue.storage.atomic import atomic_write_text

    options = _options(args, {"study", "out"})
    study = _study(options)
    out = _out_file(options, study, "FILE.csv")
    atomic_write_text(out, batch_csv(study))
    typer.echo(f"wrote {out}: {len(study.items)} items, one row each; on the platform set assignments per task "
               f"to {study.raters_per_item} (distinct workers per item), then import its results with "
               "`grue human import`")


@human_app.command("import")
def import_command(args: Pairs = typer.Argument(None, help="study=DIR results=FILE.csv [platform=mturk]")) -> None:
    """Add a platform's results CSV to the study's answers (all rows or none)."""
    from grue.human.crowd_import import ImportRefused, import_results

    options = _options(args, {"study", "results", "platform"})
    study = _study(options)
    results = Path(required(options, "results", "FILE.csv"))
    platform = options.get("platform", "mturk").strip()
    if not platform or ":" in platform:
        raise UsageError(f"platform={platform!r}: a short name without ':' (raters become <platform>:<worker>)")
    try:
        imported = import_results(study, results, platform)
    except ImportRefused as err:
        fail(str(err))
    left_out = f"; {imported.rejected} rejected assignment(s) left out" if imported.rejected else ""
    typer.echo(f"imported {imported.stored} answers into {study.db_path}{left_out}")


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
    out = _out_file(options, study, "FILE.jsonl")
    qualify = choice(options, "qualify", ("yes", "no"), "no")
    rules = _rules(options)
    excluded = set(unqualified(choices_frame(study), "comparisons", rules)) \
        if qualify == "yes" and study.kind == "comparisons" else set()
    try:
        written = export_comparisons(study, out, excluded)
    except StudyError as err:
        fail(str(err))
    typer.echo(f"appended {written} comparisons to {options['out']}"
               + (f" ({len(excluded)} unqualified raters left out)" if excluded else ""))


@human_app.command("board")
def board_command(args: Pairs = typer.Argument(None, help=(
        "studies=DIR[,DIR] [qualify=yes|no (yes: the studies' qualification rules, as the paper)] "
        "[out=leaderboard/export/site]"))) -> None:
    """The leaderboard's human section: Figure 2 (c)-(d), human scores beside the paper's, Table 2 human rows."""
    from grue.human.board_panel import human_section, write_section
    from grue.storage.outputs import check_output_dir

    options = _options(args, {"studies", "out", "qualify"})
    studies = [Path(d) for d in required(options, "studies", "DIR[,DIR]").split(",") if d]
    qualify = choice(options, "qualify", ("yes", "no"), "yes") == "yes"
    out = Path(options.get("out") or "leaderboard/export/site")
    check_output_dir(out, studies, ("human.md", "human.html", "index.html"))  # never a study, nor others' folder
    section = human_section(studies, qualify)  # a StudyError is one line (GrueGroup)
    for path in write_section(section, out):
        typer.echo(f"wrote {path}")
    typer.echo("raters failing the qualification rules left out" if qualify else "every rater counted (qualify=no)")
