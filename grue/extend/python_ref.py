"""`python:module:function` and `python:path/to/file.py:function`: a user's callable, named in a config.

The code is imported only when a config names it (a reward, a metric, a task file's mix), and it is
checked before any work starts: the module imports, the attribute exists and is callable, and it
accepts grue's four batched arguments `(prompts, generations, references, meta)`. A relative file path
is looked up in the current directory, then in the folders of the task files loaded in this process
(the latest first), so a task file can name `python:my_reward.py:score` beside itself. What it returns is checked on every
call (`checked_values`): one finite number per generation.

`grue leaderboard add` imports nothing a bundle names: while `no_code(...)` holds, every reference is
refused before its module or file is looked at (a backstop behind add's screening of submitted configs,
grue/board/submit/screen.py).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.util
import inspect
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from grue.extend.errors import ExtensionError

PREFIX = "python:"
SIGNATURE = "(prompts, generations, references, meta) -> list[float]"
_SEARCH_DIRS: list[Path] = []   # folders of the task files loaded in this process, the latest first
_NO_CODE: list[str] = []        # while not empty: why no reference may be imported now (the latest first)


def is_python_ref(name: Any) -> bool:
    return isinstance(name, str) and name.startswith(PREFIX)


def add_search_dir(folder: Path) -> None:
    """Where relative references of a task file are found: the file's own folder."""
    folder = Path(folder).resolve()
    if folder in _SEARCH_DIRS:
        _SEARCH_DIRS.remove(folder)
    _SEARCH_DIRS.insert(0, folder)  # the task file read last is the one being run


@dataclass(frozen=True)
class PythonRef:
    text: str      # as written: python:target:attr
    target: str    # a module name, or a path to a .py file
    attr: str

    @property
    def is_file(self) -> bool:
        return self.target.endswith(".py") or "/" in self.target or os.sep in self.target


def parse_ref(text: str, what: str) -> PythonRef:
    body = text[len(PREFIX):]
    target, _, attr = body.rpartition(":")
    if not target or not attr or not attr.isidentifier():
        raise ExtensionError(f"{what} {text!r}: write python:<module>:<function> or python:<file.py>:<function>")
    return PythonRef(text, target, attr)


def _find_file(ref: PythonRef, what: str) -> Path:
    path = Path(ref.target).expanduser()
    places = [path] if path.is_absolute() else [Path.cwd() / path, *(d / path for d in _SEARCH_DIRS)]
    for place in places:
        if place.is_file():
            return place.resolve()
    looked = ", ".join(str(p.parent) for p in places)
    raise ExtensionError(f"{what} {ref.text!r}: file {ref.target} not found (looked in {looked})")


def _import(ref: PythonRef, what: str) -> Any:
    try:
        if ref.is_file:
            path = _find_file(ref, what)
            name = f"grue_user_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            return module
        for folder in _SEARCH_DIRS:  # a module beside a task file imports like one in the current directory
            if str(folder) not in sys.path:
                sys.path.append(str(folder))
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())
        return importlib.import_module(ref.target)
    except ExtensionError:
        raise
    except (Exception, SystemExit) as err:  # noqa: BLE001 - the user's module failed to import: say which and why
        first = str(err).splitlines()[0] if str(err) else f"sys.exit({getattr(err, 'code', None)!r})"
        raise ExtensionError(f"{what} {ref.text!r}: importing {ref.target} failed: "
                             f"{type(err).__name__}: {first}") from None


@functools.lru_cache(maxsize=None)
def _load(text: str, cwd: str, dirs: tuple[Path, ...], what: str, content: str) -> Callable:
    """`content`: the digest of a file reference's file, so an edited file is imported again (a module
    reference is imported once per process, as Python imports it)."""
    ref = parse_ref(text, what)
    module = _import(ref, what)
    fn = getattr(module, ref.attr, None)
    if fn is None:
        raise ExtensionError(f"{what} {text!r}: {ref.target} has no attribute {ref.attr!r}")
    if not callable(fn):
        raise ExtensionError(f"{what} {text!r}: {ref.target}.{ref.attr} is a {type(fn).__name__}, not a function "
                             f"{SIGNATURE}")
    try:
        inspect.signature(fn).bind([], [], [], [])
    except TypeError:
        raise ExtensionError(f"{what} {text!r}: {ref.attr}{inspect.signature(fn)} cannot be called as "
                             f"{ref.attr}{SIGNATURE}") from None
    except ValueError:  # a builtin without a signature: trust it
        pass
    return fn


@contextlib.contextmanager
def no_code(why: str) -> Iterator[None]:
    """Within: any reference is refused with `why`, before anything is imported (not even a cached one)."""
    _NO_CODE.append(why)
    try:
        yield
    finally:
        _NO_CODE.pop()


def load_callable(text: str, what: str) -> Callable:
    """The function a reference names, imported and checked once per process (`what`: "reward", "metric")."""
    if _NO_CODE:
        raise ExtensionError(f"{what} {text!r} is not imported: {_NO_CODE[-1]}")
    ref = parse_ref(text, what)
    content = file_sha256(_find_file(ref, what)) if ref.is_file else ""
    return _load(text, os.getcwd(), tuple(_SEARCH_DIRS), what, content)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_file(text: str, what: str) -> Path | None:
    """The file a reference's code is read from: the file it names, or the file of the module it names
    (imported and checked first); None for a module without a file of its own."""
    load_callable(text, what)
    ref = parse_ref(text, what)
    if ref.is_file:
        return _find_file(ref, what)
    file = getattr(sys.modules.get(ref.target), "__file__", None)
    return Path(file).resolve() if file else None


def checked_values(values: Any, n: int, what: str) -> list[float]:
    """What a user function returned, as n finite floats, or an ExtensionError saying what was expected."""
    if hasattr(values, "tolist"):  # numpy arrays and torch tensors
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise ExtensionError(f"{what} returned a {type(values).__name__}; expected a list of {n} floats, "
                             "one per generation")
    if len(values) != n:
        raise ExtensionError(f"{what} returned {len(values)} values for {n} generations; expected one float "
                             "per generation")
    out = []
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExtensionError(f"{what} returned a {type(value).__name__} at index {i}; expected a float")
        if not math.isfinite(value):
            raise ExtensionError(f"{what} returned {value} at index {i}; expected finite floats (no NaN or inf)")
        out.append(float(value))
    return out


def call_batched(fn: Callable, what: str, prompts: Sequence[str], generations: Sequence[str],
                 references: Sequence[Sequence[str]], meta: Sequence[dict]) -> list[float]:
    """Call a user function on one batch; its own exceptions are reported as its failure, not grue's."""
    try:
        values = fn(list(prompts), list(generations), [list(r) for r in references], [dict(m) for m in meta])
    except ExtensionError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's code raised: name it and its message
        first = str(err).splitlines()[0] if str(err) else ""
        raise ExtensionError(f"{what} raised {type(err).__name__}: {first}") from None
    return checked_values(values, len(generations), what)
