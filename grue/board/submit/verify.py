"""Verify a submission bundle before a board takes it: every number that can be re-derived is.

In order (docs/leaderboard.md, "Submitting to a board"):
1. the archive is safe to unpack (archive.py) and holds only files a run has (layout.py), and it is
   unpacked into a scratch folder only;
2. the manifest has its shape, every listed file is there with its size and SHA-256, and no file is
   there that it does not list (manifest.py);
3. per seed: its config and results are data (screen.py: no `python:` reference, no interpolation, no
   machine path, a task the board has), refused before anything is built from them; `results.json` fits the results schema; `config.yaml`, `config_hash.txt` and the results'
   `config` and `config_hash` agree; the config resolves with this grue (its keys and values are ones
   this grue accepts) to the recorded hash; task, algorithm, profile and seed are the config's; the
   seeds are distinct seeds of the one setting the manifest names;
4. per seed and reported split: the predictions hold exactly the ids of the task's split (no id
   missing, unknown or twice; the count the results claim), and re-scoring their generations with the
   run's metric mix (grue's own scorers, references and prompts from the task's data, never from the
   bundle) gives every claimed metric within the tolerance. Metrics this machine cannot compute from
   generations are taken "as reported": perplexity needs the submitter's model (re-scored when the
   bundle includes it), a metric whose model or tool is missing here says why.

Every problem is one line; a bundle with any problem is refused whole.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

from grue.board.submit.archive import safe_extract
from grue.board.submit.layout import SAFE_MODEL_SUFFIXES, layout_problems, name_problem, reported_split_problems
from grue.board.submit.manifest import CARD, MANIFEST, listed_file_problems, manifest_problems, sha256_of
from grue.board.submit.screen import card_problems, screen_seed
from grue.storage.run_layout import (config_file, config_hash_file, model_dir, predictions_file, predictions_name,
                                     results_file)

RESCORED, AS_REPORTED, NOT_REPORTED = "re-scored", "as reported", "not reported"
NO_CODE = "a board runs no code a bundle names"


@dataclass(frozen=True)
class Tolerance:
    """A claimed value passes when |claimed - re-scored| <= max(absolute, relative * |re-scored|)."""

    relative: float = 1e-3
    absolute: float = 1e-4

    def allows(self, claimed: float, rescored: float) -> bool:
        return abs(claimed - rescored) <= max(self.absolute, self.relative * abs(rescored))

    def describe(self) -> str:
        return f"tolerance: {self.relative:g} relative, at least {self.absolute:g} absolute"

    def as_dict(self) -> dict[str, float]:
        return {"relative": self.relative, "absolute": self.absolute}


@dataclass
class Seed:
    """One verified (or refused) seed of the bundle."""

    run: str                    # runs/<name> inside the bundle
    path: Path                  # where it was unpacked
    doc: dict[str, Any] = field(default_factory=dict)
    name: str = ""              # its run directory's name on the board (from its verified config)
    metrics: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # split -> metric -> record
    claims: dict[str, Any] = field(default_factory=dict)  # what it claims against what it is (claims.py)


@dataclass
class Verdict:
    problems: list[str] = field(default_factory=list)
    seeds: list[Seed] = field(default_factory=list)
    manifest: Optional[dict[str, Any]] = None
    bundle_sha256: str = ""

    @property
    def accepted(self) -> bool:
        return not self.problems


def _read_json(path: Path, what: str, problems: list[str]) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        problems.append(f"{what}: not readable JSON ({err})")
        return None


def differing_keys(a: Any, b: Any, prefix: str = "") -> list[str]:
    """Dotted keys where two nested values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            out += differing_keys(a.get(key), b.get(key), f"{prefix}{key}.")
        return out
    return [] if a == b else [prefix.rstrip(".") or "(the whole config)"]


def resolve_config(config: dict[str, Any]) -> tuple[Any, list[str]]:
    """The recorded config as this grue builds it (unknown keys, ill-typed values and values outside their
    range refused), or None with the reasons."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from grue.config.constraints import rule_problems
    from grue.config.schema import run_schema, schema_config

    if config.get("task_file") or config.get("task_sha256"):
        from tasks import find_task

        spec = find_task(str(config.get("task")))  # the board's own (screen.py refused a task it lacks)
        if spec is None or spec.file_sha256 != config.get("task_sha256"):
            return None, [f"the board's task file for {config.get('task')!r} is not the one the run used "
                          "(task_sha256 differs)"]
        config = {**config, "task_file": spec.origin or None}  # read from the board, never the recorded path
    try:
        cfg = OmegaConf.merge(schema_config(), config)
        values = OmegaConf.to_container(cfg, resolve=True)
    except (OmegaConfBaseException, ValueError, KeyError, TypeError) as err:
        return None, [str(err).splitlines()[0]]
    problems = list(rule_problems(run_schema(), values))
    if problems:
        return None, problems
    OmegaConf.set_readonly(cfg, True)
    return cfg, []


class _Scoring:
    """Task data and scorers, built once per setting (and per model when the bundle carries weights)."""

    def __init__(self, device: str, settings: Optional[dict[str, Any]] = None) -> None:
        self.device = device
        self.settings = dict(settings or {})  # the board's own scorer settings (assets.py)
        self.data: dict[str, Any] = {}
        self.scorers: dict[tuple, Any] = {}

    def splits(self, key: str, cfg: Any) -> dict[str, Any]:
        if key not in self.data:
            from tasks import get_task

            self.data[key] = get_task(cfg.task).loader(cfg)
        return self.data[key]

    def scorer_set(self, key: str, cfg: Any, model_dir: Optional[Path]) -> Any:
        wanted = (key, str(model_dir) if model_dir else None)
        if wanted not in self.scorers:
            from grue.metrics.registry import build_scorers
            from grue.run.evaluate import metric_context
            from tasks import get_task

            policy = None
            if model_dir is not None:
                from grue.policy.load import load_policy

                policy = load_policy(cfg, str(model_dir), self.device)
            from grue.board.submit.assets import board_options, scoring_options
            from grue.metrics.base import MetricContext

            names = list(dict.fromkeys([*cfg.eval.metrics, *get_task(cfg.task).metrics]))
            ours = board_options(cfg.task, cfg.algo, cfg.profile, self.settings)
            context = metric_context(cfg, policy, self.device)  # then the board's scorers, never the run's
            context = MetricContext(device=context.device, policy=context.policy,
                                    options=scoring_options(context.options, ours))
            self.scorers[wanted] = build_scorers(names, context)
        return self.scorers[wanted]


def _model_dir(seed_dir: Path, included: bool, problems: list[str], where: str) -> Optional[Path]:
    model = model_dir(seed_dir)
    if not included or not model.is_dir():
        return None
    unsafe = [p.relative_to(seed_dir).as_posix() for p in model.rglob("*")
              if p.is_file() and not p.name.endswith(SAFE_MODEL_SUFFIXES)]
    if unsafe:
        problems.append(f"{where}/model holds files grue does not load from a bundle ({', '.join(unsafe[:3])}): "
                        "weights must be safetensors, with no code or pickles")
        return None
    return model


def _check_config(seed: Seed, entry: dict[str, Any], problems: list[str]) -> Any:
    """Config files, hash and identity of one seed; its resolved config, or None."""
    from grue.config import config_hash

    where, doc = seed.run, seed.doc
    try:
        config = yaml.safe_load(config_file(seed.path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        problems.append(f"{where}/config.yaml: not readable YAML ({str(err).splitlines()[0]})")
        return None
    if not isinstance(config, dict):
        problems.append(f"{where}/config.yaml: not a mapping of config keys")
        return None
    if config != doc.get("config"):
        keys = differing_keys(config, doc.get("config"))
        problems.append(f"{where}/config.yaml differs from the config recorded in results.json "
                        f"({', '.join(keys[:5])}{', ...' if len(keys) > 5 else ''})")
    recorded = doc.get("config_hash", "")
    hash_file = config_hash_file(seed.path)
    if hash_file.is_file() and hash_file.read_text(encoding="utf-8").strip() != recorded:
        problems.append(f"{where}/config_hash.txt differs from results.json's config_hash")
    if entry.get("config_hash") != recorded:
        problems.append(f"{MANIFEST}: the config hash of {where} is not its results.json's")
    cfg, why = resolve_config(config)
    if cfg is None:
        problems.append(f"{where}/config.yaml does not resolve with this grue: {'; '.join(why)}")
        return None
    resolved = config_hash(cfg)
    if resolved != recorded:
        problems.append(f"{where}/config.yaml resolves to config hash {resolved[:12]} with this grue, not the "
                        f"recorded {str(recorded)[:12]} (the config was edited, or a grue that hashes differently "
                        "made it)")
        return None
    for key in ("task", "algo", "profile", "seed"):
        if doc.get(key) != cfg[key]:
            problems.append(f"{where}/results.json: {key} {doc.get(key)!r} is not its config's {cfg[key]!r}")
    if entry.get("seed") != doc.get("seed"):
        problems.append(f"{MANIFEST}: {where} is listed as seed {entry.get('seed')}, its results say {doc.get('seed')}")
    return cfg


def _check_predictions(seed: Seed, split: str, samples: list, problems: list[str]) -> Optional[list[str]]:
    """The split's generations in the task's sample order, when the file covers the split exactly."""
    from grue.commands.predictions import PredictionsError, read_predictions

    rel = f"{seed.run}/{predictions_name(split)}"
    path = predictions_file(seed.path, split)
    if not path.is_file():
        problems.append(f"{rel}: missing, but results.json reports the {split} split")
        return None
    try:
        rows = read_predictions(path, {s.id for s in samples})
    except PredictionsError as err:
        problems.append(str(err).replace(str(path), rel))
        return None
    by_id = {row["id"]: row for row in rows}
    missing = [s.id for s in samples if s.id not in by_id]
    if missing:
        problems.append(f"{rel}: covers {len(rows)} of the {len(samples)} ids of the {split} split; missing "
                        f"{', '.join(map(repr, missing[:5]))}{' ...' if len(missing) > 5 else ''}")
        return None
    claimed = ((seed.doc.get("splits") or {}).get(split) or {}).get("n_samples")
    if claimed != len(samples):
        problems.append(f"{seed.run}/results.json: n_samples of {split} is {claimed}, the split has {len(samples)}")
    return [by_id[s.id]["generation"] for s in samples]


def _compare(seed: Seed, split: str, rescored: dict[str, float], scorers: Any, tolerance: Tolerance,
             problems: list[str]) -> None:
    from grue.metrics.registry import find_direction

    claimed = (seed.doc.get("metrics") or {}).get(split) or {}
    declared = seed.doc.get("higher_is_better") or {}
    records: dict[str, dict[str, Any]] = {}
    for metric, value in claimed.items():
        direction = find_direction(metric)
        if metric in declared and direction is not None and declared[metric] != direction:
            problems.append(f"{seed.run}/results.json: higher_is_better of {metric} is {declared[metric]}, but its "
                            f"scorer says {direction}")
        if metric in rescored:
            ok = tolerance.allows(float(value), rescored[metric])
            records[metric] = {"status": RESCORED, "claimed": value, "rescored": rescored[metric]}
            if not ok:
                problems.append(f"{seed.run}: {split} {metric} is claimed as {value:.6g} but the predictions re-score "
                                f"to {rescored[metric]:.6g} ({tolerance.describe()})")
        elif metric in scorers.unavailable:
            records[metric] = {"status": AS_REPORTED, "claimed": value, "why": scorers.unavailable[metric]}
        else:
            problems.append(f"{seed.run}: {split} claims {metric!r}, which is not in the run's metric mix "
                            "(eval.metrics) and cannot be re-scored")
    for metric in sorted(set(rescored) - set(claimed)):
        if math.isfinite(rescored[metric]):
            records[metric] = {"status": NOT_REPORTED, "rescored": rescored[metric]}
    seed.metrics[split] = records


def _check_seed(seed: Seed, entry: dict[str, Any], included: bool, scoring: _Scoring, tolerance: Tolerance,
                problems: list[str]) -> None:
    from grue.results.schema import validate_results
    from grue.run.evaluate import score_generations
    from grue.run.run_dir import RunDir

    doc = _read_json(results_file(seed.path), f"{seed.run}/results.json", problems)
    if doc is None:
        return
    try:
        raw_config = yaml.safe_load(config_file(seed.path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        raw_config = None  # _check_config names the problem
    screened = screen_seed(raw_config, doc, seed.run)  # data, never code: before anything is built from it
    if not screened and isinstance(raw_config, dict):
        from grue.board.submit.assets import asset_problems

        screened = asset_problems(raw_config, scoring.settings, f"{seed.run}/config.yaml")
    if screened:
        problems += screened
        return
    mine = validate_results(doc)
    if mine:
        problems += [f"{seed.run}/results.json: {p}" for p in mine]
        return
    seed.doc = doc
    if doc.get("kind") == "evaluation":
        problems.append(f"{seed.run}: an evaluation made by `grue eval`, not a run; boards count runs")
        return
    before = len(problems)
    cfg = _check_config(seed, entry, problems)
    if cfg is None or len(problems) > before:
        return
    from grue.config import config_hash
    from grue.results.model_card import setting_of

    seed.name = RunDir.for_config(cfg, config_hash(cfg)).path.name
    from grue.board.submit import claims

    problems += claims.check_seed_config(seed, cfg)
    from tasks import get_task

    task = get_task(cfg.task)
    if not task.runnable(cfg.profile):
        problems.append(f"{seed.run}: task {cfg.task} cannot be loaded here ({task.why_not_runnable(cfg.profile)}), "
                        "so its predictions cannot be checked")
        return
    names = [p.relative_to(seed.path.parent.parent).as_posix() for p in seed.path.rglob("*") if p.is_file()]
    problems += reported_split_problems(seed.run, names, doc["metrics"])
    key = setting_of(doc)[-1]
    splits = scoring.splits(key, cfg)
    model_dir = _model_dir(seed.path, included, problems, seed.run)
    scorers = scoring.scorer_set(key, cfg, model_dir)
    for split in doc["metrics"]:
        generations = _check_predictions(seed, split, list(splits[split]), problems)
        if generations is None:
            continue
        problems += claims.note_split(seed, split, list(splits[split]), generations)
        rescored = score_generations(scorers, splits[split], generations).metrics
        _compare(seed, split, rescored, scorers, tolerance, problems)
    if not problems:  # generations tied to the weights, when they come (regenerate.py)
        from grue.board.submit.regenerate import regeneration_problems

        problems += regeneration_problems(seed, cfg, splits, model_dir, scoring.device)


def verify_bundle(bundle: Path, staging: Path, tolerance: Tolerance = Tolerance(), device: str = "cpu",
                  settings: Optional[dict[str, Any]] = None) -> Verdict:
    """Unpack `bundle` into the empty folder `staging` and check it; the verdict lists every problem.
    `settings`: the board's own scorer settings (assets.read_board_settings); None: its presets'."""
    verdict = Verdict()
    bundle = Path(bundle)
    if not bundle.is_file():
        verdict.problems.append(f"{bundle}: not a file (give a bundle written by `grue leaderboard bundle`)")
        return verdict
    verdict.bundle_sha256 = sha256_of(bundle)
    staging.mkdir(parents=True, exist_ok=True)
    verdict.problems += safe_extract(bundle, staging, name_problem)
    if verdict.problems:
        return verdict
    if not (staging / MANIFEST).is_file():
        verdict.problems.append(f"no {MANIFEST} at the root of the bundle")
        return verdict
    manifest = _read_json(staging / MANIFEST, MANIFEST, verdict.problems)
    if manifest is None:
        return verdict
    verdict.problems += manifest_problems(manifest)
    if verdict.problems:
        return verdict
    verdict.manifest = manifest
    verdict.problems += listed_file_problems(staging, manifest["files"])
    verdict.problems += layout_problems(manifest["files"], manifest)
    if (staging / CARD).is_file():
        verdict.problems += card_problems((staging / CARD).read_text(encoding="utf-8", errors="replace"), CARD)
    if verdict.problems:
        return verdict
    scoring = _Scoring(device, settings)
    seen: dict[Any, str] = {}
    for entry in manifest["seeds"]:
        seed = Seed(entry["run"], staging / entry["run"])
        if not seed.path.is_dir():
            verdict.problems.append(f"{MANIFEST} lists {entry['run']}, which the bundle does not hold")
            continue
        from grue.extend.errors import ExtensionError
        from grue.extend.python_ref import no_code

        try:
            with no_code(NO_CODE):  # a backstop: screen.py has refused every python: reference already
                _check_seed(seed, entry, manifest["model"]["included"], scoring, tolerance, verdict.problems)
        except ExtensionError as err:
            verdict.problems.append(f"{seed.run}: {str(err).splitlines()[0]}")
        verdict.seeds.append(seed)
        if seed.doc:
            if seed.doc["seed"] in seen:
                verdict.problems.append(f"{seed.run} and {seen[seed.doc['seed']]} are both seed {seed.doc['seed']}")
            seen.setdefault(seed.doc["seed"], seed.run)
    _check_setting(verdict, manifest)
    from grue.board.submit.claims import bundle_problems

    verdict.problems += bundle_problems(verdict, staging)
    return verdict


def _check_setting(verdict: Verdict, manifest: dict[str, Any]) -> None:
    """Every seed is of the setting the manifest names: one board row."""
    from grue.board.submit.bundle import setting_fields

    for seed in verdict.seeds:
        if not seed.doc:
            continue
        fields = setting_fields(seed.doc)
        differ = [k for k, v in fields.items() if manifest["setting"].get(k) != v]
        if differ:
            verdict.problems.append(f"{seed.run} is not of the setting the manifest names (differs in "
                                    f"{', '.join(differ)}): a bundle holds the seeds of one setting")
