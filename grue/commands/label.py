"""`grue label`: queries for labelers, mock labels, CSV exchange with crowdsourcing, reward-model training.

    grue label queries task=imdb profile=mini model=<run dir or model> n=1000 out=labels.jsonl [k=4 split=train]
    grue label mock task=imdb profile=mini queries=labels.jsonl labeler=sentiment [reward.labeler_error_rate=0.1]
    grue label export-csv queries=labels.jsonl out=batch.csv
    grue label import-csv queries=labels.jsonl answers=results.csv
    grue label train comparisons=labels.jsonl out=rm/ backbone=packaged:minilm [objective=classifier]
    grue label win-rate task=imdb profile=mini a=<run dir> b=<run dir> labeler=sentiment [judges=3 split=test]

Answers are appended to the queries file itself (or `out=`): a comparisons file holds queries and
answers alike (docs/learned_rewards.md). Other `key=value` pairs are run-config keys (task, profile,
seed, reward.* settings). Every command can be run again after an interruption and continues.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import typer

from grue.run.display import console

label_app = typer.Typer(help="Comparisons for learned rewards: sample queries, label them, train a reward model.",
                        no_args_is_help=True)
ARGS = typer.Argument(None, help="key=value pairs")


class LabelUsageError(ValueError):
    """A `grue label` argument a user can fix."""


def _options(args: Optional[list[str]], names: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """This command's own `name=value` options, and the rest (run-config overrides)."""
    own, rest = {}, []
    for arg in args or []:
        key, has_value, value = arg.partition("=")
        if key in names and has_value:
            own[key] = value
        else:
            rest.append(arg)
    return own, rest


def _need(own: dict[str, str], key: str, example: str) -> str:
    if not own.get(key):
        raise LabelUsageError(f"needs {key}=<{example}>")
    return own[key]


def _integer(own: dict[str, str], key: str, default: int) -> int:
    try:
        value = int(own.get(key, default))
    except ValueError:
        raise LabelUsageError(f"{key}={own[key]!r} is not a whole number") from None
    if value < 1:
        raise LabelUsageError(f"{key} must be at least 1")
    return value


def _user_errors(command: Callable[[Optional[list[str]]], None]) -> Callable[..., None]:
    """Every error a user can fix becomes one line and exit code 2; an interruption says how to continue."""
    @functools.wraps(command)
    def guarded(args: Optional[list[str]] = ARGS) -> None:
        from grue.assets import AssetMissing
        from grue.config import ConfigError
        from grue.rewards.learned.comparisons import ComparisonsFormatError

        try:
            command(args)
        except (LabelUsageError, ConfigError, ComparisonsFormatError, AssetMissing, FileNotFoundError) as err:
            typer.secho(f"error: {err}", fg=typer.colors.RED, err=True)
            raise typer.Exit(code=2)
        except KeyboardInterrupt:
            console.print("[yellow]\\[grue] interrupted; run the same command again to continue[/]")
            raise typer.Exit(code=130)

    return guarded


def _config(rest: Sequence[str]) -> Any:
    from grue.config import load_config

    return load_config(list(rest))


def _samples(cfg: Any, split: str) -> list:
    from tasks import get_task

    task = get_task(cfg.task)
    if not task.runnable(cfg.profile):
        raise LabelUsageError(task.why_not_runnable(cfg.profile))
    splits = task.loader(cfg)
    if split not in splits:
        raise LabelUsageError(f"split={split!r} is not one of {', '.join(splits)}")
    return splits[split]


def _model_ref(model: str) -> str:
    """A run directory's final model, or the reference as given."""
    path = Path(model)
    if (path / "run.json").exists() or (path / "results.json").exists():
        if not (path / "model").is_dir():
            raise LabelUsageError(f"{model} is a run without a final model/ (unfinished or zero-shot)")
        return str(path / "model")
    return model


@label_app.command("queries")
@_user_errors
def queries(args: Optional[list[str]] = ARGS) -> None:
    """Sample n queries (a prompt and k candidates) from a model or run with the task's rollout decoding."""
    from grue.policy.load import load_policy
    from grue.rewards.learned.queries import extend_queries, query_samples
    from grue.runtime.process import device_of, seed_everything

    own, rest = _options(args, ("model", "n", "k", "split", "out"))
    cfg = _config(rest)
    model, out = _need(own, "model", "run directory or model reference"), Path(_need(own, "out", "file.jsonl"))
    n, k = _integer(own, "n", 100), _integer(own, "k", int(cfg.reward.k))
    if k < 2:
        raise LabelUsageError("k must be at least 2")
    seed_everything(cfg.seed)
    samples = query_samples(_samples(cfg, own.get("split", "train")), n, seed=int(cfg.seed))
    policy = load_policy(cfg, _model_ref(model), device_of(cfg))
    prefix = f"{cfg.task}-{Path(model).name}-s{cfg.seed}-"
    made = extend_queries(out, policy, samples, cfg.rollout, k, model, prefix, seed=int(cfg.seed), task=cfg.task,
                          progress=lambda m: console.print(f"\\[grue] {m} queries", end="\r"))
    console.print(f"\\[grue] {len(made)} queries of {k} candidates in {out}")


@label_app.command("mock")
@_user_errors
def mock(args: Optional[list[str]] = ARGS) -> None:
    """Answer every query with a mock labeler: a registered reward as the oracle (noise: reward.labeler_*)."""
    from grue.rewards.learned.comparisons import read_comparisons
    from grue.rewards.learned.labelers import MockLabeler, label_file
    from grue.rewards.registry import build_named_reward

    own, rest = _options(args, ("queries", "labeler", "out", "split"))
    cfg = _config(rest)
    source = Path(_need(own, "queries", "queries file"))
    out = Path(own.get("out", source))
    records = read_comparisons(source)
    if not records:
        raise LabelUsageError(f"{source} holds no queries")
    name = own.get("labeler") or cfg.reward.labeler or _need(own, "labeler", "registered reward")
    labeler = MockLabeler(build_named_reward(cfg, name), cfg.reward.labeler_temperature,
                          cfg.reward.labeler_error_rate, seed=int(cfg.seed))
    samples = {s.id: s for s in _samples(cfg, own.get("split", "train"))}
    answers = label_file(labeler, [q for q in records if q.labeler is None], out, samples)
    console.print(f"\\[grue] {len(answers)} answers by {labeler.name} in {out}")


@label_app.command("export-csv")
@_user_errors
def export_csv(args: Optional[list[str]] = ARGS) -> None:
    """Write the queries as CSV for a crowdsourcing platform (one row per query)."""
    from grue.rewards.learned.comparisons import read_comparisons
    from grue.rewards.learned.csv_exchange import export_queries_csv

    own, _ = _options(args, ("queries", "out"))
    queries = [q for q in read_comparisons(Path(_need(own, "queries", "queries file"))) if q.labeler is None]
    if not queries:
        raise LabelUsageError(f"{own['queries']} holds no queries")
    export_queries_csv(queries, Path(_need(own, "out", "file.csv")))
    console.print(f"\\[grue] {len(queries)} queries in {own['out']}")


@label_app.command("import-csv")
@_user_errors
def import_csv(args: Optional[list[str]] = ARGS) -> None:
    """Append a crowdsourcing platform's answers (CSV) to the comparisons file."""
    from grue.rewards.learned.comparisons import append_comparisons, read_comparisons
    from grue.rewards.learned.csv_exchange import import_answers_csv

    own, _ = _options(args, ("queries", "answers", "out"))
    source = Path(_need(own, "queries", "queries file"))
    try:
        answers = import_answers_csv(Path(_need(own, "answers", "results.csv")),
                                     [q for q in read_comparisons(source) if q.labeler is None])
    except ValueError as err:
        raise LabelUsageError(str(err)) from None
    out = Path(own.get("out", source))
    append_comparisons(out, answers)
    console.print(f"\\[grue] {len(answers)} answers appended to {out}")


@label_app.command("train")
@_user_errors
def train(args: Optional[list[str]] = ARGS) -> None:
    """Train a reward model (or, objective=classifier, a preference classifier) on a comparisons file."""
    from grue.rewards.learned.comparisons import latest_answers, read_comparisons
    from grue.rewards.learned.loss import OBJECTIVES
    from grue.rewards.learned.model import RewardModel
    from grue.rewards.learned.training import TrainingSettings, fit_reward_model
    from grue.runtime.process import device_of

    own, rest = _options(args, ("comparisons", "out", "backbone", "objective"))
    cfg = _config(rest)
    records = read_comparisons(Path(_need(own, "comparisons", "comparisons file")))
    answers = latest_answers(records)
    if len(answers) < 2:
        raise LabelUsageError(f"{own['comparisons']} holds {len(answers)} answered comparisons; need at least 2")
    objective = own.get("objective", "comparison")
    if objective not in OBJECTIVES:
        raise LabelUsageError(f"objective must be one of {', '.join(OBJECTIVES)}")
    backbone = own.get("backbone") or cfg.reward.backbone or cfg.model.policy
    r = cfg.reward
    settings = TrainingSettings(r.rm_learning_rate, r.rm_batch_size, r.rm_heldout, objective, int(cfg.seed))
    model = RewardModel.from_backbone(backbone, r.rm_max_length, int(cfg.seed), device_of(cfg))
    out = Path(_need(own, "out", "directory"))
    try:
        report = fit_reward_model(model, answers, settings, out, [q for q in records if q.labeler is None] or answers,
                                  progress=lambda p: console.print(f"\\[grue] step {p['step']} loss {p['loss']:.4f}",
                                                                   end="\r"))
    except ValueError as err:
        raise LabelUsageError(str(err)) from None
    console.print(f"\\[grue] reward model in {out}: {report.train_comparisons} comparisons trained on, held-out "
                  f"accuracy {report.heldout_accuracy:.3f}, ROC AUC {report.heldout_auc:.3f} "
                  f"({report.heldout_comparisons} held out)")


def _predictions(run: str, split: str) -> dict[str, str]:
    """id -> generation of a run's (or `grue eval`'s) predictions of a split."""
    from grue.storage.atomic import read_jsonl

    path = Path(run) / "predictions" / f"{split}.jsonl"
    if not path.is_file():
        raise LabelUsageError(f"{path} does not exist: give a finished run directory (and split=val|test)")
    return {str(row["id"]): row["generation"] for row in read_jsonl(path)}


@label_app.command("win-rate")
@_user_errors
def win_rate(args: Optional[list[str]] = ARGS) -> None:
    """Win rate of run a's generations against run b's, by the majority of `judges` mock labelers,
    with a two-sided binomial test; the judgments are appended to out= as comparisons."""
    from grue.rewards.learned.comparisons import append_comparisons, read_comparisons
    from grue.rewards.learned.labelers import MockLabeler, label_file
    from grue.rewards.learned.win_rate import majority_win_rate, pair_queries
    from grue.rewards.registry import build_named_reward

    own, rest = _options(args, ("a", "b", "labeler", "judges", "split", "out"))
    cfg = _config(rest)
    a, b = _need(own, "a", "run directory"), _need(own, "b", "run directory")
    split, judges = own.get("split", "test"), _integer(own, "judges", 3)
    gen_a, gen_b = _predictions(a, split), _predictions(b, split)
    samples = [s for s in _samples(cfg, split) if s.id in gen_a and s.id in gen_b]
    if not samples:
        raise LabelUsageError(f"runs {a} and {b} share no {split} sample of task {cfg.task}")
    queries = pair_queries(samples, [gen_a[s.id] for s in samples], [gen_b[s.id] for s in samples], a, b,
                           seed=int(cfg.seed))
    out = Path(own.get("out", f"win_rate_{Path(a).name}_vs_{Path(b).name}.jsonl"))
    known = {q.query_id for q in read_comparisons(out) if q.labeler is None}
    append_comparisons(out, [q for q in queries if q.query_id not in known])
    name = own.get("labeler") or cfg.reward.labeler or _need(own, "labeler", "registered reward")
    oracle = build_named_reward(cfg, name)
    by_id = {s.id: s for s in samples}
    answers = []
    for judge in range(judges):  # independent noise per judge; each judge's answers resume on their own
        labeler = MockLabeler(oracle, cfg.reward.labeler_temperature, cfg.reward.labeler_error_rate,
                              seed=int(cfg.seed) * 1000 + judge, judge=str(judge + 1))
        answers += label_file(labeler, queries, out, by_id)
    result = majority_win_rate(queries, answers, a)
    console.print(f"\\[grue] {Path(a).name} wins {result.a_wins}, {Path(b).name} wins {result.b_wins}, ties "
                  f"{result.ties} ({result.a_share:.1%} of decided; two-sided binomial p = {result.p_value:.3g}); "
                  f"judgments in {out}")
