"""Where file tasks come from: `task=path/to/file` and the folders of `GRUE_TASKS_PATH`.

`GRUE_TASKS_PATH` holds folders (or single task files) separated by the OS path separator (`:` on
Linux and macOS); every `*.yaml`, `*.yml` and `*.toml` file directly in such a folder is a task, and so
is every `*.py` file that assigns `TASK` at its top level (found by parsing it, not running it: the
rewards and metrics beside a task are imported only when a config names them). Files starting with `_`
or `.` are skipped. A file is read once per content:
edited, it is read again, and its new digest gives its runs a new config hash. The processes a run or
a sweep starts inherit the variable, and are given the same `task=` argument, so every process sees the
same task.
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from grue.config.task_spec import TaskSpec
from grue.extend.errors import ExtensionError
from grue.extend.python_ref import add_search_dir

ENV_VAR = "GRUE_TASKS_PATH"
EXTENSIONS = (".yaml", ".yml", ".toml", ".py")
_READ: dict[tuple[Path, str], TaskSpec] = {}               # (file, content digest) -> its task
_BY_STAT: dict[tuple[Path, int, int], TaskSpec] = {}       # (file, mtime, size) -> its task


def looks_like_task_file(value: str) -> bool:
    """`task=` names a file (rather than a task) when it has a task file's extension or a path separator."""
    return value.endswith(EXTENSIONS) or "/" in value or os.sep in value


def _parse(path: Path, text: str) -> object:
    if path.suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ExtensionError(f"{path}: not valid TOML ({err})") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ExtensionError(f"{where}: not valid YAML ({getattr(err, 'problem', None) or err})") from None


def _task_text(path: Path) -> str:
    """A YAML/TOML task file's text, read by the layer that reads the data files (grue.storage.inputs):
    a byte-order mark dropped, UTF-16 or Latin-1 named as such rather than "not UTF-8"."""
    from grue.storage.inputs import InputError, read_text

    try:
        return read_text(path, "task file")
    except InputError as err:
        raise ExtensionError(str(err)) from None


def read_task_file(value: str | Path) -> TaskSpec:
    """The task a file declares (YAML, TOML or Python), read again only when its content changed."""
    path = Path(value).expanduser()
    if not path.is_file():
        raise ExtensionError(f"task file {value} not found" + (" (it is a directory; name a .yaml, .toml or .py "
                                                                 "file in it)" if path.is_dir() else ""))
    if path.suffix not in EXTENSIONS:
        raise ExtensionError(f"task file {value}: a task file ends in {', '.join(EXTENSIONS)}")
    path = path.resolve()
    stat = path.stat()
    stamp = (path, stat.st_mtime_ns, stat.st_size)
    if stamp in _BY_STAT:  # catalogue lookups are frequent (the board asks per row): no re-read unless touched
        return _BY_STAT[stamp]
    data = path.read_bytes()
    sha256 = hashlib.sha256(data).hexdigest()
    if (path, sha256) in _READ:
        _BY_STAT[stamp] = _READ[(path, sha256)]
        return _READ[(path, sha256)]
    add_search_dir(path.parent)  # its python: references may sit beside it
    if path.suffix == ".py":
        from grue.task_files.python_file import task_from_python

        spec = task_from_python(path, sha256)
    else:
        from grue.task_files.declarative import task_from_mapping

        text = _task_text(path)
        spec = task_from_mapping(_parse(path, text), path, sha256)
    _READ[(path, sha256)] = _BY_STAT[stamp] = spec
    return spec


def _defines_task(path: Path) -> bool:
    """A Python file assigns TASK at module level (checked without importing it)."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return True  # reading it as a task names the problem
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "TASK" for t in targets):
            return True
    return False


def _is_task_file(path: Path) -> bool:
    if not path.is_file() or path.suffix not in EXTENSIONS or path.name.startswith(("_", ".")):
        return False
    return path.suffix != ".py" or _defines_task(path)


def path_entries() -> list[Path]:
    """The task files the folders and files of GRUE_TASKS_PATH hold, in order (listed again only when
    the variable or a folder changes)."""
    entries = tuple(filter(None, os.environ.get(ENV_VAR, "").split(os.pathsep)))
    stamps = tuple(os.stat(e).st_mtime_ns if os.path.exists(e) else -1 for e in entries)
    return list(_listed(entries, stamps))


def folder_task_files(folder: Path) -> list[Path]:
    """The task files directly in a folder (a GRUE_TASKS_PATH entry, or an installed package's folder)."""
    return sorted(p for p in Path(folder).iterdir() if _is_task_file(p))


@functools.lru_cache(maxsize=16)
def _listed(entries: tuple[str, ...], stamps: tuple[int, ...]) -> tuple[Path, ...]:
    files: list[Path] = []
    for entry in entries:
        place = Path(entry).expanduser()
        if place.is_dir():
            files.extend(folder_task_files(place))
        elif place.is_file():
            files.append(place)
        else:
            raise ExtensionError(f"{ENV_VAR} names {entry}, which is neither a folder nor a task file")
    return tuple(files)
