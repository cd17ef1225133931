"""Before a run or a sweep starts: everything it will need is checked, and all problems are listed at once.

A GPU job that dies after an hour because the reward's classifier was never downloaded wastes the
hour; a sweep that finds its problems one cell at a time wastes a day. So preflight checks models
(policy, supervised warm start, reward classifier), the dataset, the task's data on this profile,
every metric of the task and the reward's metrics, and reports them together:
- a model, dataset or reward that cannot be had is an error (nothing starts);
- an evaluation metric that cannot be computed here is a warning (the run reports it as unavailable,
  never as zero), except when the reward needs it: then it is an error.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from grue.assets import AssetMissing, resolve_dataset, resolve_model
from grue.train.registry import optimises_reward

# Scored under the policy being trained: available whenever the policy loads, which the model check covers.
_NEEDS_POLICY = ("perplexity",)
_WAYS_OUT = ("Ways out: fetch hub assets with `grue fetch task=<task>` on a machine with hub access and copy the "
             "hub cache here; point the config at local copies (model.policy=/dir, data.source=/dir, "
             "reward.model=/dir); or use the packaged CPU-sized assets with profile=mini.")


class PreflightError(AssetMissing):
    """Every problem preflight found, one per line; `grue run` prints it and exits with code 2. `assets`:
    whether any problem is a missing asset (only then are the ways to get one listed)."""

    def __init__(self, problems: list[str], assets: bool = True) -> None:  # noqa: D107 - AssetMissing's is per asset
        RuntimeError.__init__(self, _preflight_message(problems, assets))
        self.ref, self.problems = "", problems


def _preflight_message(problems: list[str], assets: bool) -> str:
    """One line for one settings problem (the CLI's one `error:` line); a list, and the ways out, otherwise."""
    if len(problems) == 1 and not assets:
        return f"{problems[0]} (nothing was started)"
    lines = "\n".join(f"  - {p}" for p in problems)
    return f"preflight found {len(problems)} problem(s); nothing was started:\n{lines}" + (f"\n{_WAYS_OUT}" if assets else "")


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def hub_assets(cfg: Any) -> list[tuple[str, str]]:
    """(kind, reference) pairs of a config that live on the hub (packaged and local ones need nothing)."""
    from grue.assets.resolve import is_packaged

    refs = [("model", cfg.model.policy), ("model", cfg.model.supervised_init), ("model", cfg.reward.model),
            ("dataset", cfg.data.source)]
    return [(kind, ref) for kind, ref in dict.fromkeys(refs) if ref and not is_packaged(ref) and not os.path.isdir(ref)]


def metric_hub_models(cfg: Any) -> list[str]:
    """The hub models a config's metrics score with (grue.metrics.model_refs). Not among `hub_assets`: a run
    goes on without one, reporting its metric unavailable, but `grue fetch` downloads them."""
    from grue.assets.resolve import is_packaged
    from grue.metrics.model_refs import metric_models

    required = {ref for _, ref in hub_assets(cfg)}  # listed once: fetched as the run's own assets
    return [ref for ref in metric_models(cfg.eval.metrics, cfg.eval.metric_options)
            if ref not in required and not is_packaged(ref) and not os.path.isdir(ref)]


def resolve_config_dataset(cfg: Any, ref: str) -> Any:
    """The dataset of a config, with its subset and revision (only that subset is fetched)."""
    return resolve_dataset(ref, cfg.task, cfg.data.config, cfg.data.revision)


def _first_line(err: BaseException) -> str:
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def _missing(kind: str, ref: str, err: AssetMissing) -> str:
    """`kind ref: why` from AssetMissing's first line ("... is not available on this machine (why).")."""
    line = _first_line(err)
    why = line[line.find("(") + 1:line.rfind(")")] if "(" in line else line
    return f"{kind} {ref} is not available here: {why}"


def _check_assets(cfg: Any, report: Report) -> None:
    from grue.assets.resolve import is_packaged

    models = dict.fromkeys(r for r in (cfg.model.policy, cfg.model.supervised_init, cfg.reward.model) if r)
    for ref in models:
        if is_packaged(ref):
            continue  # installed with the package; its loader reports a missing package clearly
        try:
            resolve_model(ref, cfg.task)
        except AssetMissing as err:
            report.errors.append(_missing("model", ref, err))
    source = cfg.data.source
    if source and not is_packaged(source):
        try:
            resolve_config_dataset(cfg, source)
        except AssetMissing as err:
            report.errors.append(_missing("dataset", source, err))


def reward_metrics(name: str) -> list[str]:
    """The metrics a reward is made of: a composite's or an inline mix's parts, the metric of the same name, or
    none (a reward registered by other code is checked when it is built)."""
    from grue.metrics.registry import known_metrics
    from grue.rewards.metric_reward import COMPOSITES
    from grue.rewards.mix import mix_weights

    if name in COMPOSITES:
        return list(COMPOSITES[name])
    mix = mix_weights(name)  # reward=meteor@0.5+cider@0.5 (grue/rewards/mix.py)
    if mix is not None:
        return list(mix)
    return [name] if name in known_metrics() else []


def _check_metrics(cfg: Any, report: Report, device: str) -> None:
    from grue.run.evaluate import metric_context
    from grue.metrics.registry import build_scorers

    needs_reward = optimises_reward(cfg.algo)
    reward_parts = reward_metrics(cfg.reward.name) if needs_reward else []
    wanted = [m for m in dict.fromkeys([*cfg.eval.metrics, *reward_parts]) if m not in _NEEDS_POLICY]
    ctx = metric_context(cfg, None, device)
    if "sentiment" in reward_parts:
        ctx.options["sentiment_model"] = cfg.reward.model
    try:
        unavailable = build_scorers(wanted, ctx).unavailable
    except Exception:  # noqa: BLE001 - one scorer crashed while loading: find which, one metric at a time
        unavailable = {}
        for metric in wanted:
            try:
                unavailable.update(build_scorers([metric], ctx).unavailable)
            except Exception as err:  # noqa: BLE001 - as unavailable as a missing one
                unavailable[metric] = _first_line(err)
    for metric, why in unavailable.items():
        why = why.splitlines()[0] if why else "unavailable"
        if metric in reward_parts:
            report.errors.append(f"reward {cfg.reward.name!r} needs metric {metric!r}, which is unavailable: {why}")
        else:
            report.warnings.append(f"metric {metric} unavailable: {why} (the run reports it as unavailable)")


def settings_problems(cfg: Any) -> list[str]:
    """What keeps a config from running that needs no model, dataset or metric to find: the task on this
    profile, the algorithm's own settings (DPO's comparisons file), a python: metric or reward that fails on
    a few of the task's records, LoRA target names of a known family.
    Asked before anything is resolved or built: the mini assets take minutes to build on a CPU."""
    from grue.policy.lora_targets import target_problems  # torch-free: a sweep's dry run asks this of every cell
    from grue.train.registry import get_algorithm
    from tasks import get_task

    task = get_task(cfg.task)
    problems = [] if task.runnable(cfg.profile) else [f"task {cfg.task}: {task.why_not_runnable(cfg.profile)}"]
    problems += get_algorithm(cfg.algo).preflight_problems(cfg)  # a setting it needs, left unset
    from grue.run.teacher_runs import named_teacher_problems

    problems += named_teacher_problems(cfg)  # `<group>.teacher.model=<algorithm>` that cannot teach
    from grue.extend.early_check import code_shape_problems

    problems += code_shape_problems(cfg)  # a python: metric or reward tried on a few of the task's records
    return problems + target_problems(cfg)


def preflight(cfg: Any, device: str | None = None, metrics: bool = True) -> Report:
    """Check one config; `device` is where metric models are loaded (a sweep checks on the CPU). A config
    with a settings problem is reported without resolving its assets (nothing built for a run that cannot
    start)."""
    from grue.runtime.process import device_of

    report = Report(errors=settings_problems(cfg))
    if report.errors:
        return report
    _check_assets(cfg, report)
    if metrics:
        _check_metrics(cfg, report, device or device_of(cfg))
    return report


def check_all(cfgs: Iterable[Any], device: str | None = None) -> list[str]:
    """Preflight many configs (a sweep's cells); raise one PreflightError for all; return the warnings.
    Every config's settings are checked before any config's assets, so no cell builds an asset while
    another cell's setting would refuse the whole sweep."""
    cfgs = list(cfgs)
    refused = list(dict.fromkeys(p for cfg in cfgs for p in settings_problems(cfg)))
    if refused:
        raise PreflightError(refused, assets=False)
    errors: list[str] = []
    warnings: list[str] = []
    for cfg in cfgs:
        report = preflight(cfg, device)
        errors.extend(e for e in report.errors if e not in errors)
        warnings.extend(w for w in report.warnings if w not in warnings)
    if errors:
        raise PreflightError(errors)
    return warnings


def check_assets(cfg: Any) -> None:
    """The check `grue run` makes before anything is written or trained (raises PreflightError)."""
    check_all([cfg])
