"""Variants compose: a warm start (`init=`) and the NLPO action mask (`mask=`) are settings any RL method
takes, not algorithms of their own (issue 43; DESIGN.md section 4, "Variants compose").

A method is registered once, saying which variants it takes (`Algorithm.takes`); `register_method` adds
its composed forms to the registry under canonical names built from its parts:

    <method>                      from the task's model               label "GRPO"
    supervised_<method>           init=supervised                     "Supervised+GRPO"
    <method>_mask                 mask=nlpo                           "GRPO (masked)"
    supervised_<method>_mask      init=supervised mask=nlpo           "Supervised+GRPO (masked)"

Why canonical names, resolved when a config is loaded (`canonical_algorithm`), rather than new keys in
the hash: `algo` is hashed, and every run recorded before this change names its variant in `algo`
(`supervised_grpo`, `grpo_mask`). Turning `algo=grpo init=supervised` into `algo=supervised_grpo` before
anything else reads the config makes the two spellings one run (one hash, one run directory, one board
row) and leaves every recorded hash as it was, with nothing but the loader knowing the composed spelling.
The paper's own names for PPO's forms stay what the paper calls them: NLPO is PPO through the mask
(`algo=ppo mask=nlpo` is `nlpo`), Supervised+NLPO both; they are registered by hand with their parts
(`method`, `warm_start`, `mask`) so the same lookup finds them.

A composed form differs from its method by exactly what its variants add: the warm start reads the
`supervised` group and starts from the supervised run (`warm_start`); the mask reads the `nlpo` group and
mixes NLPOTrainer's hooks into the method's trainer (grue/train/rl/masked.py); its presets come from the
matching PPO form (`presets_from`: ppo -> supervised_ppo, nlpo, supervised_nlpo), so it keeps the same token
budget and regulariser as the PPO row it is compared with. This module imports nothing heavy.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional

from grue.errors import GrueUserError
from grue.train.registry import Algorithm, find_algorithm, get_algorithm, register_algorithm

# The variant settings (top-level config keys, grue/config/schema.py) and the values each takes. "none" says
# "without it" where a name has it (algo=grpo_mask mask=none is grpo); unset keeps what the name says.
NONE = "none"
INITS = ("supervised",)     # the algorithm whose run (same settings and seed) a warm-started form starts from
MASKS = ("nlpo",)           # the NLPO top-p action mask (paper section 3.8)
VARIANT_KEYS = ("init", "mask")
# The mask's hooks, mixed into a method's trainer (grue/train/rl/masked.py) and the group it reads.
MASK_TRAINERS = {"nlpo": "grue.train.rl.nlpo:NLPOTrainer"}
MASK_GROUPS = {"nlpo": "nlpo"}
# The PPO form whose task preset a composed form takes (the same budget and regulariser as its PPO row).
_PPO_FORMS = {(None, None): "ppo", ("supervised", None): "supervised_ppo", (None, "nlpo"): "nlpo",
              ("supervised", "nlpo"): "supervised_nlpo"}


def variant_name(method: str, init: Optional[str], mask: Optional[str]) -> str:
    """The canonical name of `method` with these variants (`supervised_grpo_mask`)."""
    return f"{init + '_' if init else ''}{method}{'_mask' if mask else ''}"


def variant_label(label: str, init: Optional[str], mask: Optional[str]) -> str:
    """How the board names a composed run: "Supervised+GRPO (masked)"."""
    return f"{init.capitalize() + '+' if init else ''}{label}{' (masked)' if mask else ''}"


def _shade(colour: str, init: Optional[str], mask: Optional[str]) -> str:
    """A composed form's plot colour from its method's: darker when warm-started, lighter when masked (both:
    a mid shade), so a method's forms read as one family in a plot."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    if init and mask:
        rgb = [round(c * 0.75 + 40) for c in rgb]
    elif init:
        rgb = [round(c * 0.6) for c in rgb]
    elif mask:
        rgb = [round(c + (255 - c) * 0.55) for c in rgb]
    return "#" + "".join(f"{min(255, c):02x}" for c in rgb)


def compose(method: Algorithm, init: Optional[str] = None, mask: Optional[str] = None,
            colour: Optional[str] = None) -> Algorithm:
    """`method` warm-started from `init` and/or sampling through `mask`, as one registry entry."""
    if init is None and mask is None:
        return method
    reads = tuple(method.reads) + ((MASK_GROUPS[mask],) if mask else ()) + (("supervised",) if init else ())
    what = " and ".join(filter(None, (f"from the {init} run with the same settings and seed" if init else "",
                                      f"sampling and learning through {mask.upper()}'s top-p action mask" if mask else "")))
    presets_from = method.presets_from
    if presets_from is not None and presets_from in _PPO_FORMS.values():
        presets_from = _PPO_FORMS[(init, mask)]
    return dataclasses.replace(
        method, name=variant_name(method.name, init, mask), label=variant_label(method.label, init, mask),
        colour=colour or _shade(method.colour, init, mask), reads=reads, warm_start=init, mask=mask,
        method=method.name, takes=(), presets_from=presets_from, paper=False, description=f"{method.label} {what}")


def forms(method: Algorithm) -> list[tuple[Optional[str], Optional[str]]]:
    """The (init, mask) pairs a method takes, its plain form first."""
    inits = (None, *INITS) if "init" in method.takes else (None,)
    masks = (None, *MASKS) if "mask" in method.takes else (None,)
    return [(init, mask) for mask in masks for init in inits]  # plain, warm-started, masked, both


def register_method(method: Algorithm, colours: Optional[Mapping[tuple, str]] = None) -> list[Algorithm]:
    """Register `method` and every composed form it takes; `colours` pins a form's colour by (init, mask)
    (the forms registered before composition keep the colours their plots always had)."""
    return [register_algorithm(compose(method, init, mask, (colours or {}).get((init, mask))))
            for init, mask in forms(method)]


def parts(algo: Algorithm) -> tuple[str, Optional[str], Optional[str]]:
    """(method, init, mask) of a registered entry."""
    return algo.method or algo.name, algo.warm_start, algo.mask


def _find_form(method: str, init: Optional[str], mask: Optional[str]) -> Optional[str]:
    from grue.train.registry import algorithm_names

    return next((name for name in algorithm_names() if parts(get_algorithm(name)) == (method, init, mask)), None)


def samples_through_nlpo_mask(name: str) -> bool:
    """Whether runs of algorithm `name` sample through NLPO's mask (they read the nlpo group: NLPO, its warm-started
    form and every masked variant); False for a name that is not an algorithm."""
    entry = find_algorithm(name)
    return entry is not None and "nlpo" in entry.reads


def without_mask(name: str) -> str:
    """The registered form of algorithm `name` without its mask (NLPO -> PPO, Supervised+NLPO -> Supervised+PPO,
    `grpo_mask` -> `grpo`); `name` itself when it has no mask or is not an algorithm."""
    entry = find_algorithm(name)
    if entry is None or entry.mask is None:
        return name
    method, init, _ = parts(entry)
    return _find_form(method, init, None) or name


def taken_variants(algo: Algorithm) -> tuple[str, ...]:
    """The variant keys a registered entry's method takes (PPO's forms: init and mask; DPO's: init)."""
    base = find_algorithm(parts(algo)[0])
    return tuple(base.takes) if base is not None else ()


class VariantError(GrueUserError, ValueError):
    """A variant setting that names no registered form."""


def canonical_algorithm(algo: str, settings: Mapping[str, Any], strict: bool = True) -> tuple[str, dict[str, Any]]:
    """(the registered name of `algo` with the variant `settings` (init=, mask=) applied, the variant keys as
    the run records them). Unset keys keep what the name says. A variant the algorithm does not take is
    refused when `strict` (what a user typed for this one run), else dropped, as settings of groups an
    algorithm does not read are where one command line serves several algorithms (a sweep's cells, a warm
    start's first run: grue/config/read_groups.py)."""
    entry = get_algorithm(algo)
    method, init, mask = parts(entry)
    takes = taken_variants(entry)
    chosen = {"init": init, "mask": mask}
    for key in VARIANT_KEYS:
        value = settings.get(key)
        if value is None:
            continue
        value = str(value)
        if key not in takes:
            if strict and value != NONE:
                offered = f"it takes {', '.join(f'{k}=' for k in takes)}" if takes else "it takes no variants"
                raise VariantError(f"{key}={value}: algo={algo} has no such variant ({offered}); "
                                   f"`grue algos` lists the methods and the variants each takes")
            continue
        chosen[key] = None if value == NONE else value
    name = _find_form(method, chosen["init"], chosen["mask"])
    if name is None:  # a value outside INITS/MASKS is refused by the schema's own rule first
        raise VariantError(f"algo={algo} init={chosen['init'] or NONE} mask={chosen['mask'] or NONE}: no registered form")
    resolved = get_algorithm(name)
    recorded = {key: (getattr(resolved, "warm_start" if key == "init" else key) or NONE) if key in takes else None
                for key in VARIANT_KEYS}
    return name, recorded
