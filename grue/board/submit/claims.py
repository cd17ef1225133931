"""What a submission claims against what it is: the checks `grue leaderboard add` makes beyond re-scoring.

Re-scoring proves that the claimed numbers follow from the submitted generations; it does not prove
that the generations are what the row says they are. These checks close the gaps a submitter who lies
could otherwise use (issue 41; docs/leaderboard.md, "Submitting to a board"):

- standard settings: the keys that define the task and the profile (data source and split limits,
  the policy model, prompt length, decoding, the metric mix and its options) equal the board's own
  preset for (task, algorithm, profile). A seed that differs is *labelled* "non-standard" (the keys
  named) and kept out of the headline ranking rather than refused, so a smoke-test board of tiny
  runs still works while no 3-sample row or mini-model "paper" row is ranked beside full ones;
- claims equal config: `reward`, `init_model` and `comparable_to_paper` in results.json follow from
  its config, or the bundle is refused with the key named;
- one seed, one run: two seeds whose generations are identical on a split (in one bundle, or against
  a seed of the setting the board already holds) are refused;
- degenerate outputs: generations that are mostly a reference copied, mostly empty, or one text
  repeated are flagged on the row.

The findings a board keeps for a seed ("claims" in its verification record) are plain data, read back
by `claims_of` for the tables.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from grue.storage.run_layout import predictions_dir

# Config keys that define the task and the profile: a dotted key covers everything under it.
STANDARD_KEYS: tuple[str, ...] = ("data", "model.policy", "model.kind", "model.max_prompt_length", "generation",
                                  "eval.metrics", "eval.metric_options", "eval.perplexity_stride",
                                  "eval.perplexity_max_length")
COPIED_SHARE = 0.5    # at least this share of generations exactly equal to one of their references
EMPTY_SHARE = 0.5     # at least this share of generations empty (whitespace only)
CONSTANT_MIN = 3      # a split of at least this many samples whose generations are all one text
NON_STANDARD, DEGENERATE, GENERATIONS, DATA = "non_standard", "degenerate", "generations", "data_sha256"


def _flat(value: Any, prefix: str) -> dict[str, Any]:
    if isinstance(value, Mapping) and value:
        out: dict[str, Any] = {}
        for key in sorted(value, key=str):
            out.update(_flat(value[key], f"{prefix}.{key}"))
        return out
    return {prefix: value}


def _lookup(config: Mapping[str, Any], dotted: str) -> Any:
    value: Any = config
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def preset_of(task: str, algo: str, profile: str) -> dict[str, Any]:
    """The board's own resolved preset for (task, algorithm, profile), as a plain mapping."""
    from omegaconf import OmegaConf

    from grue.config import load_config

    cfg = load_config([f"task={task}", f"algo={algo}", f"profile={profile}"])
    return OmegaConf.to_container(cfg, resolve=True)


def preset_differences(config: Mapping[str, Any], preset: Mapping[str, Any]) -> list[str]:
    """The standard keys (dotted, leaf level) where a submitted config differs from the preset."""
    differ = []
    for key in STANDARD_KEYS:
        mine, theirs = _flat(_lookup(config, key), key), _flat(_lookup(preset, key), key)
        differ += [k for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)]
    return differ


def expected_init_model(config: Mapping[str, Any]) -> str:
    """The initial model a run of this config starts from, as the board names it (setting.py): the
    runner's rule (grue/run/runner.py, `_initial_model_ref`) without making anything."""
    from grue.board.numbers.setting import init_model_name
    from grue.train.registry import find_algorithm

    algo = find_algorithm(config["algo"])
    model = config.get("model") or {}
    warm = algo.warm_start if algo is not None else None
    trains = algo.trains if algo is not None else None
    if model.get("supervised_init") and (warm or trains == "supervised"):
        return init_model_name(model["supervised_init"])
    if not warm:
        return init_model_name(model.get("policy"))
    return f"{config['task']}-{config['profile']}-{warm} run"


def claim_contradictions(doc: Mapping[str, Any], config: Mapping[str, Any]) -> list[str]:
    """Keys where results.json claims something its config does not say (one line each, key named)."""
    from grue.board.numbers.setting import init_model_name
    from grue.train.registry import optimises_reward
    from tasks import get_task

    out = []
    reward = (config.get("reward") or {}).get("name") if optimises_reward(config["algo"]) else None
    if doc.get("reward") != reward:
        out.append(f"reward {doc.get('reward')!r} is not its config's {reward!r}")
    init = init_model_name(doc.get("init_model"))
    if init != expected_init_model(config):
        out.append(f"init_model {doc.get('init_model')!r} is not the model its config starts from "
                   f"({expected_init_model(config)!r})")
    paper = config["profile"] == "paper" and bool(get_task(config["task"]).grue_task)
    if doc.get("comparable_to_paper") is not None and doc.get("comparable_to_paper") != paper:
        out.append(f"comparable_to_paper {doc.get('comparable_to_paper')!r} is not its config's {paper!r}")
    return out


def degenerate_labels(samples: Sequence[Any], generations: Sequence[str]) -> list[str]:
    """What is degenerate about one split's generations (empty when nothing is)."""
    n = len(generations)
    if not n:
        return []
    labels = []
    copied = sum(1 for s, g in zip(samples, generations) if g.strip() and g.strip() in {r.strip() for r in s.references})
    if copied / n >= COPIED_SHARE:
        labels.append(f"{copied} of {n} generations copied from the references")
    empty = sum(1 for g in generations if not g.strip())
    if empty / n >= EMPTY_SHARE:
        labels.append(f"{empty} of {n} generations empty")
    if n >= CONSTANT_MIN and len({g.strip() for g in generations}) == 1 and generations[0].strip():
        labels.append(f"all {n} generations are one text")
    return labels


def generations_digest(ids: Iterable[str], generations: Iterable[str]) -> str:
    """SHA-256 of a split's (id, generation) pairs in id order: equal digests mean identical outputs."""
    pairs = sorted(zip(ids, generations))
    return hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()


def check_seed_config(seed: Any, cfg: Any) -> list[str]:
    """Hook (verify.py, once a seed's config resolved): contradictions refuse; differences from the preset
    are recorded on the seed."""
    from omegaconf import OmegaConf

    config = OmegaConf.to_container(cfg, resolve=True)
    problems = [f"{seed.run}/results.json: {line}" for line in claim_contradictions(seed.doc, config)]
    try:
        differ = preset_differences(config, preset_of(cfg.task, cfg.algo, cfg.profile))
    except Exception as err:  # a task or algorithm with no preset here: nothing standard to compare with
        differ = [f"(no {cfg.profile} preset for {cfg.task} {cfg.algo} here: {str(err).splitlines()[0]})"]
    seed.claims[NON_STANDARD] = differ
    seed.claims.setdefault(DEGENERATE, {})
    seed.claims.setdefault("digests", {})
    return problems


def note_split(seed: Any, split: str, samples: Sequence[Any], generations: Sequence[str]) -> list[str]:
    """Hook (verify.py, per re-scored split): the split's data digest against the board's own data (refused
    when they differ), the generations' digest and what is degenerate about them."""
    from grue.results.digests import split_digest

    problems = []
    claimed = (seed.doc.get("data_sha256") or {}).get(split)
    mine = split_digest(samples)
    if claimed is not None and claimed != mine:
        problems.append(f"{seed.run}/results.json: the {split} split's data digest {str(claimed)[:12]} is not the "
                        f"board's {mine[:12]}: the run scored other prompts or references than this board's data")
    seed.claims.setdefault(DATA, {})[split] = "matched" if claimed == mine else "not recorded"
    seed.claims.setdefault("digests", {})[split] = generations_digest([s.id for s in samples], generations)
    labels = degenerate_labels(samples, generations)
    if labels:
        seed.claims.setdefault(DEGENERATE, {})[split] = labels
    return problems


def twin_problems(seeds: Sequence[Any]) -> list[str]:
    """Hook (verify.py, after every seed): two seeds of the bundle with identical generations on a split."""
    seen: dict[tuple[str, str], str] = {}
    problems = []
    for seed in seeds:
        for split, digest in sorted((seed.claims.get("digests") or {}).items()):
            twin = seen.setdefault((split, digest), seed.run)
            if twin != seed.run:
                problems.append(f"{seed.run} and {twin} have identical {split} generations: one run submitted as "
                                "two seeds (each seed must be its own run)")
    return problems


def held_digests(run_dir: Path) -> dict[str, str]:
    """The generations digest of each split a run on the board holds predictions for.

    Strict, unlike run_layout.read_jsonl, which skips a bad line: a digest of the lines that happened to
    parse would name other generations than the file's, so a split with any bad line has no digest."""
    out = {}
    for path in sorted(predictions_dir(run_dir).glob("*.jsonl")):
        try:
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            out[path.stem] = generations_digest([r["id"] for r in rows], [r["generation"] for r in rows])
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            continue
    return out


def board_twin_problems(seeds: Sequence[Any], held: Mapping[Path, Mapping[str, Any]]) -> list[str]:
    """Seeds whose generations equal those of a seed the board holds for the same setting.

    `held` maps each run directory on the board to its results document."""
    from grue.results.model_card import setting_of

    problems = []
    for seed in seeds:
        mine = seed.claims.get("digests") or {}
        for path, doc in held.items():
            try:
                if setting_of(doc) != setting_of(seed.doc):
                    continue
            except (KeyError, TypeError, AttributeError, ValueError):
                continue
            same = sorted(s for s, d in held_digests(path).items() if mine.get(s) == d)
            if same:
                problems.append(f"{seed.run}: its {', '.join(same)} generations are those of {Path(path).name}, "
                                "a seed the board already holds (each seed must be its own run)")
    return problems


def claims_of(record: Mapping[str, Any] | None) -> dict[str, Any]:
    """A verification record's claims findings (empty for a record that has none)."""
    claims = (record or {}).get("claims")
    return dict(claims) if isinstance(claims, Mapping) else {}


def row_labels(claims: Mapping[str, Any]) -> list[str]:
    """The labels a row shows for one seed's findings: non-standard keys, degenerate outputs, and
    whether its generations are tied to a model."""
    labels = []
    differ = claims.get(NON_STANDARD) or []
    if differ:
        labels.append(f"non-standard ({', '.join(differ[:3])}{', ...' if len(differ) > 3 else ''})")
    for split, found in sorted((claims.get(DEGENERATE) or {}).items()):
        labels += [f"{split}: {label}" for label in found]
    if claims.get(GENERATIONS):
        labels.append(str(claims[GENERATIONS]))
    return labels


def headline_excluded(claims: Mapping[str, Any]) -> bool:
    """A seed that keeps its row out of the headline ranking: non-standard settings or degenerate outputs."""
    return bool(claims.get(NON_STANDARD)) or bool(claims.get(DEGENERATE))


NOT_TIED = "generations not tied to a model"


def bundle_problems(verdict: Any, staging: Path) -> list[str]:
    """Hook (verify.py, after every seed): seeds that are one run, and whether each seed's generations are
    tied to a model (regenerate.py, when the bundle carries weights)."""
    problems = twin_problems(verdict.seeds) + declared_seed_problems(verdict.manifest or {}, verdict.seeds)
    included = bool(((verdict.manifest or {}).get("model") or {}).get("included"))
    for seed in verdict.seeds:
        if seed.claims:
            seed.claims[GENERATIONS] = NOT_TIED if not included else seed.claims.get(GENERATIONS, NOT_TIED)
    return problems


def held_runs(runs_dir: Path) -> dict[Path, dict[str, Any]]:
    """The run directories a board holds, with their results documents (unreadable ones left out)."""
    out: dict[Path, dict[str, Any]] = {}
    for path in sorted(Path(runs_dir).glob("*/results.json")) if Path(runs_dir).is_dir() else ():
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if isinstance(doc, dict):
            out[path.parent] = doc
    return out


def declared_seed_problems(manifest: Mapping[str, Any], seeds: Sequence[Any]) -> list[str]:
    """Every seed the setting ran is in the bundle: seeds the manifest declares (`declared_seeds`, written by
    `grue leaderboard bundle` from every finished seed it found) but does not carry are named, so a board
    can refuse a best seed picked from several."""
    declared = manifest.get("declared_seeds")
    if not isinstance(declared, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in declared):
        return [f"{'manifest.json'}: 'declared_seeds' must list every seed the setting ran (bundle it again with "
                "this grue)"]
    carried = {entry.get("seed") for entry in manifest.get("seeds") or [] if isinstance(entry, dict)}
    missing = sorted(set(declared) - carried)
    undeclared = sorted(carried - set(declared))
    problems = []
    if missing:
        problems.append(f"manifest.json declares seed(s) {', '.join(map(str, missing))} of this setting but the "
                        "bundle does not carry them: a board takes every seed a setting ran, not the best ones")
    if undeclared:
        problems.append(f"manifest.json carries seed(s) {', '.join(map(str, undeclared))} it does not declare")
    return problems
