"""The scorers, models and data a board re-scores with: always its own, never a submitter's.

A submitted config can name a scorer's model (`eval.metric_options.sentiment_model`, `bertscore_model`,
...), a tool (`spice_java`, `spice_jar`), a folder (`wordnet_dir`, `spice_cache`) or the task's data
(`data.source`). Any of them pointed at something the submitter controls (a classifier shipped in an
earlier bundle, a dataset file they placed) would make "verified" mean nothing. So:

- the board's value of each such key is the maintainer's (`<board>/board.yaml`, below), else the board's
  own preset for the row's task, algorithm and profile (`grue run task=... algo=... profile=...`);
- a submitted config whose value differs is refused with one line naming the key, before anything loads;
- re-scoring builds its scorers from the board's values whatever the config says (IMDB's sentiment
  classifier included, which a run otherwise takes from `reward.model`), and the board's resource
  settings (workers, scorer batch sizes).

`<board>/board.yaml`, written by the maintainer (a board holds no settings of a submitter's):

    metric_options:            # the board's scorer models and tools, for every task and profile
      sentiment_model: packaged:minilm-sentiment-split42
      bertscore_model: roberta-large
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Mapping

BOARD_FILE = "board.yaml"
# Metric options that name a model, a tool, a folder or a file: the board's own (grue/metrics/*.py).
ASSET_OPTIONS = ("sentiment_model", "bertscore_model", "bleurt_checkpoint", "summac_model", "intent_model",
                 "wordnet_dir", "spice_java", "spice_jar", "spice_cache")
ASSET_SUFFIXES = ("_model", "_checkpoint", "_dir", "_path", "_file", "_jar", "_java", "_cache", "_url", "_endpoint")
# How much work scoring takes: the board's machine decides (never refused, always the board's).
RESOURCE_OPTIONS = ("metric_workers", "sentiment_batch_size", "bertscore_batch_tokens", "bleurt_batch_size",
                    "summac_batch_size", "intent_batch_size", "perplexity_batch_size", "spice_memory")
DATA_KEYS = ("source", "config", "revision")   # data.<key>: where the task's data is read from


def is_asset(key: str) -> bool:
    return key in ASSET_OPTIONS or key.endswith(ASSET_SUFFIXES)


def read_board_settings(board: Path) -> tuple[dict[str, Any], list[str]]:
    """The maintainer's `<board>/board.yaml` ({} when there is none), or the problems with it."""
    import yaml

    path = Path(board) / BOARD_FILE
    if not path.is_file():
        return {}, []
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        return {}, [f"{path}: not readable YAML ({str(err).splitlines()[0]})"]
    options = doc.get("metric_options", {}) if isinstance(doc, dict) else None
    if not isinstance(options, dict) or set(doc) - {"metric_options"}:
        return {}, [f"{path}: write `metric_options:` and under it the board's scorer settings (key: value)"]
    return {"metric_options": dict(options)}, []


@functools.lru_cache(maxsize=64)
def _preset(task: str, algo: str, profile: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the preset's metric options as a run of it would score with, its data group)."""
    from omegaconf import OmegaConf

    from grue.config import load_config
    from grue.run.evaluate import metric_context

    cfg = load_config([f"task={task}", f"algo={algo}", f"profile={profile}"])
    options = dict(metric_context(cfg, None, "cpu").options)
    return options, OmegaConf.to_container(cfg.data, resolve=True)


def board_options(task: str, algo: str, profile: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The board's value of every asset option for this row (None: the metric's own default)."""
    preset, _ = _preset(task, algo, profile)
    mine = dict(settings.get("metric_options") or {})
    keys = {k for k in (*preset, *mine) if is_asset(k)} | set(ASSET_OPTIONS)
    return {k: mine.get(k, preset.get(k)) for k in sorted(keys)}


def asset_problems(config: Mapping[str, Any], settings: Mapping[str, Any], where: str) -> list[str]:
    """Submitted asset options and data locations that are not the board's (one line each)."""
    try:
        task, algo, profile = str(config["task"]), str(config["algo"]), str(config["profile"])
        ours = board_options(task, algo, profile, settings)
        _, data = _preset(task, algo, profile)
    except Exception as err:  # noqa: BLE001 - an unknown task/algorithm/profile is named by the config checks
        return [] if isinstance(err, (KeyError, ValueError)) else [f"{where}: the board's preset cannot be built "
                                                                  f"({type(err).__name__})"]
    problems = []
    options = ((config.get("eval") or {}).get("metric_options") or {}) if isinstance(config.get("eval"), Mapping) else {}
    for key, value in sorted(options.items()) if isinstance(options, Mapping) else ():
        if is_asset(str(key)) and value != ours.get(key):
            problems.append(f"{where}: eval.metric_options.{key} names a scorer asset ({str(value)[:80]!r}) that is "
                            f"not the board's ({ours.get(key)!r}); a board re-scores only with what it has installed")
    submitted = config.get("data") if isinstance(config.get("data"), Mapping) else {}
    for key in DATA_KEYS:
        if submitted.get(key) != data.get(key):
            problems.append(f"{where}: data.{key} is {str(submitted.get(key))[:80]!r}, not the board's "
                            f"{data.get(key)!r} for {task}/{profile}; a board re-scores on its own data only")
    return problems


def scoring_options(options: Mapping[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
    """A run's scorer options with every asset the board's and every resource setting the board's default."""
    out = {k: v for k, v in options.items() if not is_asset(k) and k not in RESOURCE_OPTIONS}
    out.update({k: v for k, v in ours.items() if v is not None})
    return out
