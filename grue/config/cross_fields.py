"""Rules across fields of the newer config groups (learned rewards, label schedules, the dense critic).

Each field's own range is checked by its schema rule; these are the combinations that pass field by
field but cannot mean anything: a schedule with nobody to label, a critic setting no run will read,
two kinds of labeler noise at once. They are checked when the config is loaded, so `grue config`
refuses what `grue run` would, before any model is loaded; each problem names both keys.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Any, Iterator, Mapping, Optional
from urllib.parse import urlparse

from grue.errors import GrueUserError

URL_SCHEMES = ("http", "https")


def corpus_level_metrics() -> frozenset[str]:
    """Metrics with a corpus value only (no value per generation), so no reward of one episode:
    the diversity statistics and perplexity."""
    from grue.metrics.diversity import NAMES

    return frozenset(NAMES) | {"perplexity"}


def reward_metrics(name: str) -> tuple[str, ...]:
    """The metrics a metric-based reward adds up (a composite's parts, or the metric itself)."""
    from grue.rewards.metric_reward import COMPOSITES

    return tuple(COMPOSITES.get(name, {name: 1.0}))


def per_sample_problem(key: str, name: Optional[str]) -> Optional[str]:
    """Why reward `name` (given as `key`) cannot score one generation at a time, or None."""
    corpus = [m for m in reward_metrics(name or "") if m in corpus_level_metrics()]
    if not corpus:
        return None
    return (f"{key}={name}: {', '.join(corpus)} is a corpus-level metric (one value for a whole set of "
            "generations), so it cannot score one generation; choose a per-sample metric or reward")


def _labeler_problems(r: Mapping[str, Any]) -> Iterator[str]:
    if r["schedule"] and not r["labeler"]:
        yield (f"reward.schedule={r['schedule']} needs reward.labeler=<a registered reward as the mock "
               "labeler's oracle, e.g. sentiment>")
    if r["schedule"] and r["name"] != "learned":
        yield (f"reward.schedule={r['schedule']} trains a reward model for reward.name=learned, not "
               f"reward.name={r['name']}")
    if r["labeler_temperature"] > 0 and r["labeler_error_rate"] > 0:
        yield (f"reward.labeler_temperature={r['labeler_temperature']:g} and reward.labeler_error_rate="
               f"{r['labeler_error_rate']:g}: the mock labeler takes one kind of noise; set the other to 0")
    if r["initial_labels"] is not None and r["initial_labels"] > r["labels"]:
        yield (f"reward.initial_labels={r['initial_labels']} exceeds reward.labels={r['labels']} "
               "(the whole label budget)")
    if r["schedule"] and r["rounds"] > r["labels"]:
        yield (f"reward.rounds={r['rounds']} exceeds reward.labels={r['labels']}: every round needs at least "
               "one new label")
    for key in ("name", "labeler"):
        problem = per_sample_problem(f"reward.{key}", r[key])
        if problem:
            yield problem


def _schedule_problems(values: Mapping[str, Any]) -> Iterator[str]:
    """A batched or online label schedule whose rounds cannot all start in the run's RL iterations."""
    from grue.rewards.learned.plan import schedule_problem

    problem = schedule_problem(values["reward"], values["ppo"])
    if problem:
        yield problem


def _critic_defaults() -> dict[str, Any]:
    from grue.config.schema import CriticConfig

    return asdict(CriticConfig())


def _critic_problems(values: Mapping[str, Any]) -> Iterator[str]:
    critic, dense = values["critic"], values["reward"]["dense"]
    if dense != "critic":
        changed = [k for k, v in _critic_defaults().items() if critic.get(k) != v]
        if changed:
            yield (f"critic.{changed[0]} is set but reward.dense is {dense or 'not set'}: critic.* settings are read only "
                   "with reward.dense=critic (set it, or drop the critic settings)")
        return
    from grue.train.registry import optimises_reward, rl_algorithm_names

    if not optimises_reward(values["algo"]):
        yield (f"reward.dense=critic with algo={values['algo']}: only algorithms that optimise a reward "
               f"({', '.join(rl_algorithm_names())}) ask the critic, so it would never be asked")
    url = critic["base_url"]
    if url:
        parsed = urlparse(url)
        if parsed.scheme not in URL_SCHEMES or not parsed.netloc:
            yield (f"critic.base_url={url}: give an http:// or https:// address with a host, e.g. "
                   "http://localhost:8000/v1 (critic.backend=http)")


class CrossFieldError(GrueUserError, ValueError):
    """Two settings that cannot go together; the message names both keys."""


def check_cross_fields(cfg: Any) -> None:
    """Raise CrossFieldError with the first cross-field problem of a loaded config (DictConfig)."""
    from omegaconf import OmegaConf

    problem = next(cross_field_problems(OmegaConf.to_container(cfg, resolve=True)), None)
    if problem:
        raise CrossFieldError(problem)


def _kl_problems(values: Mapping[str, Any]) -> Iterator[str]:
    """A KL term in the loss asked of a method with a critic: PPO's loss has no KL term (its penalty is
    in the reward), so the setting would be silently ignored."""
    if values["kl"].get("placement", "reward") != "loss":
        return
    from grue.train.registry import algorithm_names, find_algorithm

    algo = find_algorithm(values["algo"])
    if algo is not None and algo.trains == "rl" and not algo.critic_free:
        free = [n for n in algorithm_names() if find_algorithm(n).critic_free and find_algorithm(n).warm_start is None
                and not n.endswith("_mask")]
        yield (f"kl.placement=loss with algo={values['algo']}: only the critic-free methods ({', '.join(free)} and "
               "their supervised_/_mask variants) put the KL term in the loss; use kl.placement=reward")


def _lora_problems(values: Mapping[str, Any]) -> Iterator[str]:
    """LoRA settings given without a rank: with `model.lora.rank=0` no adapter is built, so they would be
    silently ignored while the whole model trains."""
    lora = values["model"].get("lora") or {}
    if lora.get("rank", 0):
        return
    given = [f"model.lora.{key}={lora[key]}" for key, unset in (("alpha", None), ("target_modules", None),
                                                              ("critic", "full"))
             if lora.get(key, unset) != unset]
    if given:
        yield (f"{', '.join(given)} without model.lora.rank: no adapters are built at rank 0 (the whole model "
               "trains), so this would be ignored; set model.lora.rank (e.g. 16) or drop it")


def _precision_problems(values: Mapping[str, Any]) -> Iterator[str]:
    """fp16 on a device named as a CPU (or Apple's): its loss scaling is CUDA's, so the run would refuse it."""
    device = str(values.get("device", "auto"))
    if values["model"].get("mixed_precision") == "fp16" and (device == "cpu" or device == "mps"):
        yield (f"model.mixed_precision=fp16 with device={device}: fp16's loss scaling needs a CUDA GPU; "
               "use model.mixed_precision=bf16 (or no) here")


def cross_field_problems(values: Mapping[str, Any]) -> Iterator[str]:
    """Every cross-field problem of a resolved config (`OmegaConf.to_container(cfg, resolve=True)`)."""
    yield from _kl_problems(values)
    yield from _lora_problems(values)
    yield from _precision_problems(values)
    yield from _labeler_problems(values["reward"])
    yield from _schedule_problems(values)
    yield from _critic_problems(values)
