"""What a referee asks of a row before comparing it, read from one run's recorded config (results.json
`config`): which critic it trained with, which KL regulariser, how many samples per prompt, how many
epochs per rollout.

Every seed of a board row shares one setting (setting.py), so the facts of any of its runs are the row's.
They are read, never guessed: a results file that records no config says "not recorded", and a fact that
does not apply to an algorithm (the critic of a supervised run) is the empty string.
- critic: `shared` (model.value_model=shared: PPO's value loss goes into the policy's own trunk),
  `separate` (a value model of its own), `none` (a critic-free method), '' (trains no RL);
- regulariser: grue/train/regulariser.py's one-line description ("k1 in reward, adaptive to 0.5/token
  from 0.05"), '' for what trains no RL;
- group size: samples drawn per prompt (GRPO's G, RLOO's k, REINFORCE++(-baseline)'s group); 1 for PPO;
- epochs: passes over each rollout (the algorithm's own group's `epochs` when it has one, else `ppo.epochs`;
  RLOO's paper step, `rloo.steps=single`, is one unclipped step);
- comparisons: what a preference run (DPO) trained on: its comparisons file, made (dpo.comparisons=auto) or
  given, its answers, labelers and digest; '' for other runs.
"""
from __future__ import annotations

from typing import Any, Mapping

NOT_RECORDED = "not recorded"
SINGLE_STEP = "single"  # rloo.steps=single (grue/train/rl/critic_free_config.py): one REINFORCE step per rollout
NO_CRITIC = "none"
CRITIC_KINDS: tuple[str, ...] = ("shared", "separate")
# Each group method's samples per prompt, by the config key its own group names it with.
GROUP_SIZE_KEYS: tuple[tuple[str, str], ...] = (("grpo", "group_size"), ("rloo", "k"),
                                                 ("reinforce_pp", "group_size"),
                                                 ("reinforce_pp_baseline", "group_size"))


def _config(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    config = doc.get("config")
    return config if isinstance(config, Mapping) and config else None


def _trains_rl(doc: Mapping[str, Any]) -> bool:
    from grue.train.registry import find_algorithm

    algo = find_algorithm(str(doc.get("algo")))
    return algo is not None and algo.trains == "rl"


def _own_groups(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The config groups the run's algorithm adds of its own (GRPO's, Supervised+GRPO's: `grpo`)."""
    from grue.train.registry import find_algorithm

    algo = find_algorithm(str(doc.get("algo")))
    return tuple(algo.config_groups) if algo is not None else ()


def critic_of(doc: Mapping[str, Any]) -> str:
    """`shared`, `separate`, `none` (critic-free), '' (no RL) or NOT_RECORDED (no config to read)."""
    from grue.train.registry import find_algorithm

    algo = find_algorithm(str(doc.get("algo")))
    if algo is None or algo.trains != "rl":
        return ""
    if algo.critic_free:
        return NO_CRITIC
    config = _config(doc)
    model = config.get("model") if config else None
    kind = model.get("value_model") if isinstance(model, Mapping) else None
    return kind if kind in CRITIC_KINDS else NOT_RECORDED


def regulariser_text(doc: Mapping[str, Any]) -> str:
    """The run's KL regulariser in one line (grue.train.regulariser), '' for what trains no RL."""
    from grue.train.regulariser import describe_regulariser, regulariser_of

    if not _trains_rl(doc):
        return ""
    config = _config(doc)
    if config is None:
        return NOT_RECORDED
    from grue.config.identity import semantic_config

    # Only the groups the algorithm reads: a resolved config holds every group, and a PPO run's unread `grpo`
    # section (grpo.kl=loss in files from before kl.placement) says nothing about PPO's regulariser.
    return describe_regulariser(regulariser_of(semantic_config({**config, "algo": doc.get("algo")})))


def group_size_of(doc: Mapping[str, Any]) -> str:
    """Samples per prompt as text ('' for what trains no RL, NOT_RECORDED without a config)."""
    if not _trains_rl(doc):
        return ""
    config = _config(doc)
    if config is None:
        return NOT_RECORDED
    own = _own_groups(doc)
    for group, key in GROUP_SIZE_KEYS:
        section = config.get(group)
        if group in own and isinstance(section, Mapping) and key in section:
            return str(section[key])
    return NOT_RECORDED if any(group in own for group, _ in GROUP_SIZE_KEYS) else "1"


def epochs_of(doc: Mapping[str, Any]) -> str:
    """Passes over each rollout as text ('' for what trains no RL, NOT_RECORDED without it)."""
    if not _trains_rl(doc):
        return ""
    config = _config(doc)
    for group in _own_groups(doc):  # RLOO's paper step: one unclipped step per rollout, ppo.epochs not read
        section = config.get(group) if config else None
        if isinstance(section, Mapping) and section.get("steps") == SINGLE_STEP:
            return "1 (single unclipped step)"
    for group in (*_own_groups(doc), "ppo"):
        section = config.get(group) if config else None
        if isinstance(section, Mapping) and "epochs" in section:
            return str(section["epochs"])
    return NOT_RECORDED


def comparisons_parts(doc: Mapping[str, Any]) -> tuple[str, str]:
    """What a preference run (DPO) trained on, as (source, digest): results.json `comparisons`
    (grue/train/offline/comparisons_record.py) as ("made: 160 answers by mock:sentiment", "1a2b3c4d5e6f") or
    ("labels.jsonl: ...", ...) for a file of the user's; a file from before that record names the file and its digest
    from the config; ("", "") for other runs. The source is the same for every seed of a DPO setting whose files
    grue made per seed, so a board row can say it once beside each seed's digest."""
    from pathlib import PurePath

    from grue.train.registry import find_algorithm

    algo = find_algorithm(str(doc.get("algo")))
    if algo is None or algo.trains != "preferences":
        return "", ""
    record = doc.get("comparisons")
    if isinstance(record, Mapping):
        where = "made" if record.get("made") else PurePath(str(record.get("path"))).name
        by = ", ".join(map(str, record.get("labelers") or ())) or "no labeler"
        return f"{where}: {record.get('answers')} answers by {by}", str(record.get("sha256"))[:12]
    config = _config(doc)
    dpo = config.get("dpo") if config else None
    if not isinstance(dpo, Mapping) or not dpo.get("comparisons"):
        return NOT_RECORDED, ""
    return PurePath(str(dpo["comparisons"])).name, str(dpo.get("comparisons_sha256"))[:12]


def comparisons_of(doc: Mapping[str, Any]) -> str:
    """comparisons_parts as one line: "made: 160 answers by mock:sentiment (sha256 1a2b3c4d5e6f)"."""
    source, digest = comparisons_parts(doc)
    return f"{source} (sha256 {digest})" if digest else source


FACTS: tuple[tuple[str, Any], ...] = (("critic", critic_of), ("regulariser", regulariser_text),
                                      ("group size", group_size_of), ("epochs", epochs_of),
                                      ("comparisons", comparisons_of))


def run_facts(doc: Mapping[str, Any]) -> dict[str, str]:
    """Every fact of one run, by its display name."""
    return {name: read(doc) for name, read in FACTS}
