"""`grue label`: queries for labelers, mock labels, CSV exchange with crowdsourcing, reward-model training.

    grue label queries task=imdb profile=mini model=<run dir or model> n=1000 out=labels.jsonl [k=4 split=train]
    grue label mock task=imdb profile=mini queries=labels.jsonl labeler=sentiment [reward.labeler_error_rate=0.1]
    grue label export-csv queries=labels.jsonl out=batch.csv
    grue label import-csv queries=labels.jsonl answers=results.csv
    grue label train comparisons=labels.jsonl out=rm/ backbone=packaged:minilm [objective=classifier]
    grue label win-rate task=imdb profile=mini a=<run dir> b=<run dir> labeler=sentiment [judges=3 split=test]

Answers are appended to the queries file itself (or `out=`): a comparisons file holds queries and
answers alike (docs/learned_rewards.md). Other `key=value` pairs are run-config keys (task, profile,
seed, reward.* settings) where a command reads the config, and refused where it does not. Every command
can be run again after an interruption and continues. No command writes over one of its inputs: each
`out=` is checked against them before any work starts.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import typer

from grue.commands.arguments import own_and_config, own_pairs, required, whole_number
from grue.commands.errors import UsageError, fail, is_user_error, one_line
from grue.rewards.learned.comparisons import read_comparisons
from grue.runtime.console import console
from grue.storage.run_layout import model_dir, predictions_file, results_file, status_file

label_app = typer.Typer(help="Comparisons for learned rewards: sample queries, label them, train a reward model.",
                        no_args_is_help=True)
ARGS = typer.Argument(None, help="key=value pairs")


def _user_errors(command: Callable[[Optional[list[str]]], None]) -> Callable[..., None]:
    """Every error a user can fix becomes one line and exit code 2; an interruption says how to continue."""
    @functools.wraps(command)
    def guarded(args: Optional[list[str]] = ARGS) -> None:
        try:
            command(args)
        except KeyboardInterrupt:
            console.print("[yellow]\\[grue] interrupted; run the same command again to continue[/]")
            raise typer.Exit(code=130)
        except typer.Exit:
            raise
        except Exception as err:  # noqa: BLE001 - a user's mistake is one line; anything else stays a bug
            if not is_user_error(err):
                raise
            fail(one_line(err))

    return guarded


def _config(rest: Sequence[str]) -> Any:
    """The run config of the other arguments, with the learned-reward settings checked across fields
    (both labeler noises, a schedule without a labeler...) before any model is loaded."""
    from grue.config import load_config
    from grue.config.cross_fields import CrossFieldError, check_cross_fields

    cfg = load_config(list(rest))
    try:
        check_cross_fields(cfg)
    except CrossFieldError as err:
        raise UsageError(str(err)) from None
    return cfg


def _samples(cfg: Any, split: str) -> list:
    from tasks import get_task

    task = get_task(cfg.task)
    if not task.runnable(cfg.profile):
        raise UsageError(task.why_not_runnable(cfg.profile))
    splits = task.loader(cfg)
    if split not in splits:
        raise UsageError(f"split={split!r} is not one of {', '.join(splits)}")
    return splits[split]


def _model_ref(model: str) -> str:
    """A run directory's final model, or the reference as given."""
    path = Path(model)
    if status_file(path).exists() or results_file(path).exists():
        if not model_dir(path).is_dir():
            raise UsageError(f"{model} is a run without a final model/ (unfinished or zero-shot)")
        return str(model_dir(path))
    return model


def _labeler(cfg: Any, own: dict[str, str]) -> str:
    """The mock labeler's reward: `labeler=` or reward.labeler, a registered reward that scores one
    generation at a time (noise settings were checked with the config)."""
    from grue.config.cross_fields import per_sample_problem
    from grue.rewards.registry import check_reward

    name = own.get("labeler") or cfg.reward.labeler
    if not name:
        raise UsageError("needs labeler=<registered reward> (or reward.labeler=), e.g. labeler=sentiment")
    try:
        check_reward(name)
    except KeyError as err:
        raise UsageError(f"labeler={name}: {err.args[0]}") from None
    problem = per_sample_problem("labeler", name)
    if problem:
        raise UsageError(problem)
    return name


def _label(labeler: Any, queries: Sequence, out: Path, samples: dict) -> list:
    """label_file, with an oracle that cannot score these queries (a reference-based metric on queries
    whose samples carry no references) refused in one line; nothing is appended before the first
    chunk is scored."""
    from grue.metrics.base import MetricUnavailable
    from grue.rewards.learned.labelers import label_file

    try:
        return label_file(labeler, queries, out, samples)
    except (MetricUnavailable, ValueError) as err:
        raise UsageError(f"labeler {labeler.name} cannot score these queries ({err}); choose a labeler that "
                         "needs no references, or queries from this task's split=") from None


@label_app.command("queries")
@_user_errors
def queries(args: Optional[list[str]] = ARGS) -> None:
    """Sample n queries (a prompt and k candidates) from a model or run with the task's rollout decoding."""
    from grue.policy.load import load_policy
    from grue.rewards.learned.queries import collect_queries
    from grue.runtime.process import device_of, seed_everything
    from grue.storage.outputs import check_output_file

    own, rest = own_and_config(args, ("model", "n", "k", "split", "out"))
    model, out = required(own, "model", "run directory or model reference"), Path(required(own, "out", "file.jsonl"))
    cfg = _config(rest)
    n, k = whole_number(own, "n", 100, minimum=1), whole_number(own, "k", int(cfg.reward.k), minimum=2)
    check_output_file(out, [Path(model)])
    read_comparisons(out)  # a resumed file must be a comparisons file before any sampling
    seed_everything(cfg.seed)
    split = _samples(cfg, own.get("split", "train"))
    policy = load_policy(cfg, _model_ref(model), device_of(cfg))
    prefix = f"{cfg.task}-{Path(model).name}-s{cfg.seed}-"
    made = collect_queries(out, policy, cfg, split, n, k, model, prefix,
                           progress=lambda m: console.print(f"\\[grue] {m}/{n} queries", end="\r"))
    console.print(f"\\[grue] {len(made)} queries of {k} candidates in {out}")


def _queries_in(path: Path) -> list:
    """The unanswered queries of an input comparisons file (which must exist and hold some)."""
    queries = [q for q in read_comparisons(path, required=True) if q.labeler is None]
    if not queries:
        raise UsageError(f"{path} holds no queries (only answers, or nothing); make some with `grue label queries`")
    return queries


@label_app.command("mock")
@_user_errors
def mock(args: Optional[list[str]] = ARGS) -> None:
    """Answer every query with a mock labeler: a registered reward as the oracle (noise: reward.labeler_*)."""
    from grue.rewards.learned.labelers import mock_labeler
    from grue.storage.outputs import check_output_file

    own, rest = own_and_config(args, ("queries", "labeler", "out", "split"))
    source = Path(required(own, "queries", "queries file"))
    cfg = _config(rest)
    out = Path(own.get("out") or source)
    queries = _queries_in(source)
    if out != source:
        check_output_file(out, [])
        read_comparisons(out)
    name = _labeler(cfg, own)
    samples = {s.id: s for s in _samples(cfg, own.get("split", "train"))}
    labeler = mock_labeler(cfg, name)
    answers = _label(labeler, queries, out, samples)
    console.print(f"\\[grue] {len(answers)} answers by {labeler.name} in {out}")


@label_app.command("export-csv")
@_user_errors
def export_csv(args: Optional[list[str]] = ARGS) -> None:
    """Write the queries as CSV for a crowdsourcing platform (one row per query)."""
    from grue.rewards.learned.csv_exchange import export_queries_csv
    from grue.storage.outputs import check_output_file

    own = own_pairs(args, ("queries", "out"))
    source, out = Path(required(own, "queries", "queries file")), Path(required(own, "out", "file.csv"))
    check_output_file(out, [source])
    queries = _queries_in(source)
    export_queries_csv(queries, out)
    console.print(f"\\[grue] {len(queries)} queries in {out}")


@label_app.command("import-csv")
@_user_errors
def import_csv(args: Optional[list[str]] = ARGS) -> None:
    """Append a crowdsourcing platform's answers (CSV) to the comparisons file (all rows or none)."""
    from grue.rewards.learned.comparisons import append_comparisons
    from grue.rewards.learned.csv_exchange import import_answers_csv
    from grue.storage.outputs import check_output_file

    own = own_pairs(args, ("queries", "answers", "out"))
    source, results = Path(required(own, "queries", "queries file")), Path(required(own, "answers", "results.csv"))
    out = Path(own.get("out") or source)
    check_output_file(out, [results])
    if out != source:
        read_comparisons(out)
    imported = import_answers_csv(results, _queries_in(source))
    append_comparisons(out, imported.answers)
    left_out = f" ({imported.rejected} rejected on the platform left out)" if imported.rejected else ""
    console.print(f"\\[grue] {len(imported.answers)} answers appended to {out}{left_out}")


@label_app.command("train")
@_user_errors
def train(args: Optional[list[str]] = ARGS) -> None:
    """Train a reward model (or, objective=classifier, a preference classifier) on a comparisons file.

    out= is a new directory or a reward model trained before, which is replaced whole once the new
    one is saved; any other directory is refused, and so is one holding the comparisons."""
    from grue.rewards.learned.comparisons import latest_answers
    from grue.rewards.learned.loss import OBJECTIVES
    from grue.rewards.learned.model import MODEL_FILE, RewardModel
    from grue.rewards.learned.training import TrainingSettings, fit_reward_model
    from grue.runtime.process import device_of
    from grue.storage.outputs import check_output_dir

    own, rest = own_and_config(args, ("comparisons", "out", "backbone", "objective"))
    source, out = Path(required(own, "comparisons", "comparisons file")), Path(required(own, "out", "directory"))
    objective = own.get("objective", "comparison")
    if objective not in OBJECTIVES:
        raise UsageError(f"objective={objective!r}: use {'|'.join(OBJECTIVES)}")
    cfg = _config(rest)
    check_output_dir(out, [source], MODEL_FILE)
    records = read_comparisons(source, required=True)
    answers = latest_answers(records)
    if len(answers) < 2:
        raise UsageError(f"{source} holds {len(answers)} answered comparisons; need at least 2")
    backbone = own.get("backbone") or cfg.reward.backbone or cfg.model.policy
    r = cfg.reward
    settings = TrainingSettings(r.rm_learning_rate, r.rm_batch_size, r.rm_heldout, objective, int(cfg.seed))
    model = RewardModel.from_backbone(backbone, r.rm_max_length, int(cfg.seed), device_of(cfg))
    try:
        report = fit_reward_model(model, answers, settings, out, [q for q in records if q.labeler is None] or answers,
                                  progress=lambda p: console.print(f"\\[grue] step {p['step']} loss {p['loss']:.4f}",
                                                                   end="\r"))
    except ValueError as err:
        raise UsageError(str(err)) from None
    console.print(f"\\[grue] reward model in {out}: {report.train_comparisons} comparisons trained on, held-out "
                  f"accuracy {report.heldout_accuracy:.3f}, ROC AUC {report.heldout_auc:.3f} "
                  f"({report.heldout_comparisons} held out)")


def _predictions(run: str, split: str) -> dict[str, str]:
    """id -> generation of a run's (or `grue eval`'s) predictions of a split; every bad line is listed."""
    from grue.storage.inputs import Field, read_records

    path = predictions_file(run, split)
    if not path.is_file():
        raise UsageError(f"{path} does not exist: give a finished run directory (and split=val|test)")
    rows = read_records(path, (Field("id", (str, int)), Field("generation")), "predictions file")
    return {str(row["id"]): row["generation"] for _, row in rows}


@label_app.command("win-rate")
@_user_errors
def win_rate(args: Optional[list[str]] = ARGS) -> None:
    """Win rate of run a's generations against run b's, by the majority of `judges` mock labelers,
    with a two-sided binomial test; the judgments are appended to out= as comparisons."""
    from grue.rewards.learned.comparisons import append_comparisons
    from grue.rewards.learned.labelers import MockLabeler
    from grue.human.pvalue import format_p
    from grue.rewards.learned.win_rate import majority_win_rate, pair_queries
    from grue.rewards.registry import build_named_reward
    from grue.storage.outputs import check_output_file

    own, rest = own_and_config(args, ("a", "b", "labeler", "judges", "split", "out"))
    a, b = required(own, "a", "run directory"), required(own, "b", "run directory")
    if Path(a).resolve() == Path(b).resolve():
        raise UsageError(f"a= and b= are the same run ({a}); a win rate compares two different runs")
    split, judges = own.get("split", "test"), whole_number(own, "judges", 3, minimum=1)
    cfg = _config(rest)
    name = _labeler(cfg, own)
    out = Path(own.get("out") or f"win_rate_{Path(a).name}_vs_{Path(b).name}.jsonl")
    check_output_file(out, [Path(a), Path(b)])
    known = {q.query_id for q in read_comparisons(out) if q.labeler is None}
    gen_a, gen_b = _predictions(a, split), _predictions(b, split)
    samples = [s for s in _samples(cfg, split) if s.id in gen_a and s.id in gen_b]
    if not samples:
        raise UsageError(f"runs {a} and {b} share no {split} sample of task {cfg.task}")
    queries = pair_queries(samples, [gen_a[s.id] for s in samples], [gen_b[s.id] for s in samples], a, b,
                           seed=int(cfg.seed))
    append_comparisons(out, [q for q in queries if q.query_id not in known])
    oracle = build_named_reward(cfg, name)
    by_id = {s.id: s for s in samples}
    answers = []
    for judge in range(judges):  # independent noise per judge; each judge's answers resume on their own
        labeler = MockLabeler(oracle, cfg.reward.labeler_temperature, cfg.reward.labeler_error_rate,
                              seed=int(cfg.seed) * 1000 + judge, judge=str(judge + 1))
        answers += _label(labeler, queries, out, by_id)
    result = majority_win_rate(queries, answers, a)
    console.print(f"\\[grue] {Path(a).name} wins {result.a_wins}, {Path(b).name} wins {result.b_wins}, ties "
                  f"{result.ties} ({result.a_share:.1%} of decided; two-sided binomial p = {format_p(result.p_value)}); "
                  f"judgments in {out}")
