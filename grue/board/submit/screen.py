"""A submitted config or results file read as plain data, before `grue leaderboard add` builds anything from it.

What a submitter hands a board is data, never code (DESIGN.md, "The trust boundary"). So, before a
config is resolved, a task looked up or a scorer built, every key and value of the seed's `config.yaml`
and `results.json` is walked, and these are refused with one line naming the key:

- a `python:` reference anywhere (a metric in `eval.metrics`, a reward, a labeler, a claimed metric's
  name): the board runs only its own scorers, so the module or file it names is never imported;
- an OmegaConf interpolation anywhere (`${...}`, `${oc.env:...}`): a submitted config is never resolved
  against the board's machine, and the refusal does not repeat what the interpolation says;
- a machine path where a bundle carries none: `output_dir` or `task_file` absolute or climbing out with
  `..` (`grue leaderboard bundle` writes them relative), a warm start's `init_model` naming an absolute run
  directory;
- a task the board does not have installed: a recorded `task_file` is never read from where the
  submitter's machine had it.
"""
from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from grue.extend.python_ref import PREFIX as CODE_PREFIX

INTERPOLATION = "${"
_ABSOLUTE = re.compile(r"^(?:/|~|\\\\|[A-Za-z]:[\\/])")
PATH_KEYS = ("output_dir", "task_file")   # the config's machine paths (not hashed): bundled relative
_RUN_MODEL = re.compile(r"(?:^|[/\\])[^/\\]+-seed\d+-[0-9a-f]{8}[/\\]model[/\\]?$")


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) of every leaf of nested mappings and lists; keys are leaves too (as their key)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            yield name, key
            yield from leaves(item, name)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from leaves(item, f"{prefix}[{i}]")
    elif prefix:
        yield prefix, value


def is_absolute(value: Any) -> bool:
    return isinstance(value, str) and bool(_ABSOLUTE.match(value))


def code_problems(doc: Any, where: str) -> list[str]:
    """`python:` references and interpolations anywhere in `doc` (one line each, the value never shown
    resolved)."""
    problems = []
    for key, value in leaves(doc):
        if not isinstance(value, str):
            continue
        if value.startswith(CODE_PREFIX):
            problems.append(f"{where}: {key} names code ({value[:80]!r}); a board runs no submitted code and "
                            "scores with its own registered metrics only, so nothing was imported")
        elif INTERPOLATION in value:
            problems.append(f"{where}: {key} holds an interpolation (${{...}}); a board never resolves a "
                            "submitted config (bundle the resolved config that `grue run` wrote)")
    return problems


def path_problems(config: Mapping[str, Any], where: str) -> list[str]:
    """Machine paths a bundle must not carry (made relative by `grue leaderboard bundle`)."""
    problems = []
    for key in PATH_KEYS:
        value = config.get(key)
        if is_absolute(value) or (isinstance(value, str) and ".." in re.split(r"[/\\]", value)):
            problems.append(f"{where}: {key} is a path on the submitter's machine; a bundle carries it relative "
                            "(bundle the run again with this grue)")
    return problems


def results_path_problems(doc: Mapping[str, Any], where: str) -> list[str]:
    """A warm start's `init_model` as an absolute run directory (bundled as `<run>/model`)."""
    value = doc.get("init_model")
    if is_absolute(value) and _RUN_MODEL.search(value):
        return [f"{where}: init_model is a run directory on the submitter's machine; a bundle carries it "
                "relative (bundle the run again with this grue)"]
    return []


def task_problems(config: Mapping[str, Any], where: str) -> list[str]:
    """The config's task must be one this board has (a built-in, or a task file the board installed)."""
    from tasks import find_task

    name = config.get("task")
    if not isinstance(name, str) or find_task(name) is None:
        return [f"{where}: task {name!r} is not installed on this board; a board re-scores only tasks it has "
                "(the maintainer installs a task file with GRUE_TASKS_PATH; a bundle's task_file is never read)"]
    return []


def screen_seed(config: Any, doc: Any, run: str) -> list[str]:
    """Everything refused in one seed's `config.yaml` (`config`) and `results.json` (`doc`) before any
    of it is used."""
    problems = code_problems(config, f"{run}/config.yaml") + code_problems(doc, f"{run}/results.json")
    if problems:
        return problems
    if isinstance(config, Mapping):
        problems += path_problems(config, f"{run}/config.yaml")
    if isinstance(doc, Mapping):
        problems += results_path_problems(doc, f"{run}/results.json")
        if isinstance(doc.get("config"), Mapping):
            problems += path_problems(doc["config"], f"{run}/results.json config")
    for source in (config, doc.get("config") if isinstance(doc, Mapping) else None):
        if isinstance(source, Mapping):
            return problems + task_problems(source, run)
    return problems


_LOAD_LINE = re.compile(r'from_pretrained\("([^"]*)"\)|grue eval model=(\S+)')


def card_problems(text: str, where: str) -> list[str]:
    """The model card's loading lines naming a path on the submitter's machine."""
    found = [a or b for a, b in _LOAD_LINE.findall(text)]
    if any(is_absolute(value) for value in found):
        return [f"{where}: its loading example reads the model from a path on the submitter's machine; a bundle "
                "carries it relative (bundle the run again with this grue)"]
    return []
