"""The algorithm registry: everything grue needs to know about a training method, in one entry.

The config loader, its hash, results validation, the runner, sweeps, preflight, the board and its
plots all read this module instead of keeping their own lists. It imports nothing heavy: a trainer
and a config group are named as `"module:attribute"` strings and imported only when a run trains
or a config is built.

Adding an algorithm (see grue/train/algorithms.py for the paper's six):
1. write its trainer: for RL, a subclass of `grue.train.rl.trainer.RLTrainer` overriding the seam
   it changes (`advantages`, the update's `losses`, ...); set `uses_critic = False` if it has none;
   for preferences, a trainer like `grue.train.offline.dpo.DPOTrainer` (grue/train/offline/loop.py runs it);
2. if it has settings of its own, a dataclass of fields (`grue.config.schema.rule` for ranges) that
   becomes the config group `config_groups` names;
3. `register_algorithm(Algorithm(...))` in a module that is imported: under `grue/train/` for a
   built-in one, or a plugin (`GRUE_PLUGINS`, grue/plugins.py) from outside the package. A setting a run
   cannot start without goes in its `preflight` check (DPO's comparisons file); decoding of its own at
   evaluation in its `evaluation` factory (best-of-n).
Presets per task go in the task files' `algos`, laid over the entry's own (`presets_from`, `preset`).
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

# Config groups every run's hash covers, whatever its algorithm: what it is, its model, data, reward,
# evaluation decoding and metrics. (A zero-shot run optimises no reward, but its reward settings have
# always been part of its identity; leaving them out now would re-hash every existing run.)
COMMON_GROUPS: tuple[str, ...] = ("task", "algo", "profile", "seed", "model", "data", "reward", "critic",
                                  "generation", "eval")
# What a run of it trains on: nothing (the initial model is evaluated), the references (supervised), its own
# rollouts scored by the reward (rl), or a comparisons file's answers (preferences: offline, e.g. DPO).
TRAINS = ("nothing", "supervised", "rl", "preferences")


@dataclass(frozen=True)
class Algorithm:
    name: str                          # the `algo=` value and the results file's `algo`
    label: str                         # how tables and plots name it ("Supervised+PPO")
    colour: str                        # its colour in plots ("#rrggbb")
    trains: str                        # nothing (evaluate the initial model) | supervised | rl | preferences
    reads: tuple[str, ...] = ()        # config groups it reads beyond COMMON_GROUPS (its own `config_groups` too)
    trainer: Optional[str] = None      # "module:Class", imported when a run trains
    warm_start: Optional[str] = None   # the algorithm whose run (same settings and seed) it starts from
    optimises_reward: Optional[bool] = None  # None: whether it trains with RL
    # Config groups it adds to every run's config: group name -> "module:Dataclass". Its own runs' hash
    # always covers them, listed in `reads` or not; other algorithms do not read them, so adding one never
    # changes an existing run's hash.
    config_groups: Mapping[str, str] = field(default_factory=dict)
    paper: bool = False                # one of the paper's six (its published numbers exist)
    # Presets, merged in this order on each task (a later layer wins per key): the task's preset for
    # `presets_from` (e.g. PPO's: the same budget in generated tokens), `preset` (the algorithm's own
    # settings on every task), then the task's own entry for it, if it names it (grue/config/load.py).
    presets_from: Optional[str] = None
    preset: Mapping[str, Any] = field(default_factory=dict)
    # Its own settings on every task of one profile (profile -> settings), merged after `preset` and before
    # the task's entry: what a CPU-sized mini run of it needs that its paper's defaults are not (DPO's
    # warm-up on a few hundred steps).
    profile_presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    critic_free: bool = False          # an RL method without a value model (the board's "is the critic worth its cost?")
    # "module:function": (run config) -> problems a run of it cannot start with (a setting it needs left
    # unset); preflight reports them with the rest, before anything is written.
    preflight: Optional[str] = None
    # "module:function": (run services, policy) -> how its runs decode at evaluation, replacing plain decoding
    # (best-of-n: n samples per prompt, the reward picks one); built once per run.
    evaluation: Optional[str] = None
    description: str = ""
    # Variants compose (grue/train/variants.py): the variant keys a method takes ("init": a warm start,
    # "mask": the NLPO action mask), and, on a composed form, the method it is a form of and its mask (its
    # warm start is `warm_start`). register_method registers a method's forms; none of these is hashed.
    takes: tuple[str, ...] = ()
    method: Optional[str] = None
    mask: Optional[str] = None
    # Groups read not by its trainer but by a recipe whose digest its hash holds (DPO's dpo.comparisons=auto
    # samples its candidates with the task's `rollout` decoding): group -> "module:function" taking the resolved
    # values and returning why the recipe is not in use (None when it is). Such a group is accepted on the
    # command line and shown, but not hashed as a group (the recipe's digest covers it), and a setting of it is
    # refused where the recipe is off.
    recipe_reads: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.trains not in TRAINS:
            raise ValueError(f"algorithm {self.name!r}: trains={self.trains!r} is not one of {', '.join(TRAINS)}")
        if self.trains != "nothing" and not self.trainer:
            raise ValueError(f"algorithm {self.name!r} trains ({self.trains}) but names no trainer")
        if self.optimises_reward is None:
            object.__setattr__(self, "optimises_reward", self.trains == "rl")

    @property
    def hashed_groups(self) -> tuple[str, ...]:
        """The top-level config keys its config hash covers (a whitelist: nothing else can change it): the
        common groups, what it reads, and its own config groups, which it reads by having them (a plugin
        that left its group out of `reads` would otherwise share one run directory across its settings)."""
        own = tuple(self.reads) + tuple(self.config_groups)
        return COMMON_GROUPS + tuple(dict.fromkeys(g for g in own if g not in COMMON_GROUPS))

    def task_preset(self, declared: Mapping[str, Mapping[str, Any]], profile: Optional[str] = None) -> list[Mapping[str, Any]]:
        """The preset layers of this algorithm on a task whose `profile` declares `declared` (algo -> preset),
        in merge order. A task naming the algorithm adds to its registry presets, never replaces them: a
        plugin set "on PPO's budget" by a task file keeps PPO's learning rate, minibatches and KL from
        `presets_from`. (No built-in task names an algorithm that has presets of its own, so merging
        instead of replacing changes no built-in preset.)"""
        borrowed = declared.get(self.presets_from, {}) if self.presets_from else {}
        own_profile = self.profile_presets.get(profile, {}) if profile is not None else {}
        return [layer for layer in (borrowed, self.preset, own_profile, declared.get(self.name, {})) if layer]

    def preflight_problems(self, cfg: Any) -> list[str]:
        """What keeps a run of it from starting (its `preflight` check), in preflight's words."""
        return list(load_attribute(self.preflight)(cfg)) if self.preflight else []

    def trainer_class(self) -> Any:
        """Its trainer; a masked form's is its method's trainer with the mask's hooks mixed in."""
        if not self.trainer:
            raise ValueError(f"algorithm {self.name!r} trains nothing")
        trainer = load_attribute(self.trainer)
        if self.mask is None:
            return trainer
        from grue.train.variants import MASK_TRAINERS

        return load_attribute("grue.train.rl.masked:with_mask")(trainer, load_attribute(MASK_TRAINERS[self.mask]))


_REGISTRY: dict[str, Algorithm] = {}
_BUILTINS = "grue.train.algorithms"


def register_algorithm(algo: Algorithm) -> Algorithm:
    """Add an algorithm; registering the same name twice with different facts is an error."""
    known = _REGISTRY.get(algo.name)
    if known is not None and known != algo:
        raise ValueError(f"algorithm {algo.name!r} is registered twice with different settings")
    if algo.warm_start is not None and algo.warm_start == algo.name:
        raise ValueError(f"algorithm {algo.name!r} cannot warm-start from itself")
    _REGISTRY[algo.name] = algo
    return algo


def _load() -> None:
    importlib.import_module(_BUILTINS)
    from grue.plugins import load_plugins

    load_plugins()


def algorithm_names() -> tuple[str, ...]:
    """Every registered algorithm, the paper's six first in their paper order."""
    _load()
    return tuple(_REGISTRY)


def rl_algorithm_names() -> tuple[str, ...]:
    return tuple(name for name in algorithm_names() if _REGISTRY[name].optimises_reward)


def get_algorithm(name: str) -> Algorithm:
    _load()
    if name not in _REGISTRY:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=3)
        hint = f"Did you mean: {', '.join(close)}?" if close else f"Known: {', '.join(_REGISTRY)}."
        raise KeyError(f"unknown algorithm {name!r}. {hint}")
    return _REGISTRY[name]


def find_algorithm(name: str) -> Optional[Algorithm]:
    """The entry, or None for a name that is not an algorithm (a reference row such as Lead-3)."""
    _load()
    return _REGISTRY.get(name)


def plugin_config_groups() -> dict[str, str]:
    """Every config group an algorithm adds: group -> "module:Dataclass"."""
    groups: dict[str, str] = {}
    for name in algorithm_names():
        for group, target in _REGISTRY[name].config_groups.items():
            if groups.setdefault(group, target) != target:
                raise ValueError(f"config group {group!r} is declared by two algorithms with different schemas")
    return groups


def load_attribute(target: str) -> Any:
    """`"package.module:Name"` -> the object."""
    module, _, attribute = target.partition(":")
    if not attribute:
        raise ValueError(f"{target!r} should name a module and an attribute as 'module:attribute'")
    return getattr(importlib.import_module(module), attribute)


def optimises_reward(name: str) -> bool:
    """Whether runs of this algorithm optimise `reward.name` (False for a name that is no algorithm)."""
    algo = find_algorithm(name)
    return bool(algo is not None and algo.optimises_reward)
