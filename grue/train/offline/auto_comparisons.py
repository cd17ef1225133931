"""Make the comparisons file of a `dpo.comparisons=auto` run: once per recipe, into the asset cache, whole or not at all.

The file is what `grue label queries` followed by `grue label mock labeler=<reward>` would write, made by the
same functions (grue/rewards/learned/queries.py `collect_queries`, labelers.py `mock_labeler` and `label_file`):
dpo.queries prompts of the task's train split, k candidates each sampled from the run's initial policy (for
Supervised+DPO: the supervised run's model, which is also its reference) with the rollout decoding, every query
answered by the mock labeler. Its recipe and folder are grue/train/offline/auto_recipe.py's.

It is built in a private folder that is renamed into place when complete (grue/assets/build_once.py, under a
lock): a run killed while sampling or labelling leaves no file at the cached path, only a hidden temporary
folder nothing reads, which the next run making the file removes before starting it afresh. Runs (and sweep cells) sharing the recipe wait
for the one making it and then reuse it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, Sequence

from grue.errors import GrueUserError
from grue.train.offline.auto_recipe import COMPARISONS_FILE, RECIPE_FILE, comparisons_path, labeler_of, recipe_text


class AutoComparisonsError(GrueUserError, RuntimeError):
    """The made comparisons file cannot be made for this task (its labeler cannot score the queries)."""


def _build(cfg: Any, policy: Any, train: Sequence[Any], text: str, say: Callable[[str], None]) -> Callable[[Path], None]:
    def build(folder: Path) -> None:
        from grue.metrics.base import MetricUnavailable
        from grue.rewards.learned.labelers import label_file, mock_labeler
        from grue.rewards.learned.queries import collect_queries

        out = folder / COMPARISONS_FILE
        n, k, name = int(cfg.dpo.queries), int(cfg.reward.k), labeler_of(cfg)
        say(f"dpo.comparisons=auto: sampling {n} queries of {k} candidates from the initial policy, "
            f"answered by mock:{name} (made once, then reused)")
        queries = collect_queries(out, policy, cfg, train, n, k, source=f"{cfg.algo} initial policy",
                                  prefix=f"{cfg.task}-auto-s{cfg.seed}-")
        try:
            label_file(mock_labeler(cfg, name), queries, out, {s.id: s for s in train})
        except (MetricUnavailable, ValueError) as err:
            raise AutoComparisonsError(f"dpo.labeler={name} cannot score task {cfg.task}'s queries ({err}); choose "
                                       "a labeler that needs no references") from None
        (folder / RECIPE_FILE).write_text(text, encoding="utf-8")

    return build


def ensure_comparisons(cfg: Any, policy: Any, train: Sequence[Any], say: Callable[[str], None]) -> Path:
    """The run's made comparisons file: the cached one, or made now from `policy` (the run's initial policy,
    untouched) and the `train` split's samples. `cfg` is the run's whole config (it reads `rollout`)."""
    from omegaconf import OmegaConf

    from grue.assets.build_once import build_once

    text = recipe_text(OmegaConf.to_container(cfg, resolve=True))
    if hashlib.sha256(text.encode()).hexdigest() != cfg.dpo.comparisons_sha256:
        raise RuntimeError("dpo.comparisons=auto: the recipe differs from the one the run's config was hashed with "
                           "(dpo.comparisons_sha256); load the config again")
    path = comparisons_path(cfg)
    build_once(path.parent, _build(cfg, policy, train, text, say), marker=COMPARISONS_FILE)
    return path
