"""One kind of user error (issue 42): every error type grue defines either says it is the user's to fix, by
deriving from grue.errors.GrueUserError, or is named below as an internal signal; the CLI shows every user
error as one `error:` line with exit code 2 without keeping a list of class names (the list it kept missed
errors such as CrossFieldError and MetricUnavailable, which reached the user as "internal error, a bug")."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import grue
from grue.commands.errors import GrueGroup, is_user_error
from grue.errors import GrueUserError

# Error types that never reach the user as such: each is caught where it is raised and turned into something
# else. A new type goes either here (with the reason) or under GrueUserError.
INTERNAL: set[str] = set()
EXCEPTION_BASES = {"Exception", "ValueError", "RuntimeError", "OSError", "ImportError", "KeyError", "TypeError",
                   "LookupError", "IOError"}


def defined_error_types() -> list[tuple[str, str]]:
    """(module, class) of every class in the grue package whose bases name an exception type."""
    root = Path(grue.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
            if bases & EXCEPTION_BASES or any(b.endswith(("Error", "Refused", "Missing", "Unavailable")) for b in bases):
                module = ".".join(path.relative_to(root.parent).with_suffix("").parts)
                found.append((module, node.name))
    return found


def test_the_walk_finds_the_known_error_types():
    found = {name for _, name in defined_error_types()}
    assert {"ConfigError", "AssetMissing", "PluginError", "CrossFieldError", "UsageError"} <= found


@pytest.mark.parametrize("module,name", defined_error_types())
def test_every_error_type_says_whose_it_is(module, name):
    cls = getattr(importlib.import_module(module), name)
    if not issubclass(cls, BaseException):
        return
    assert issubclass(cls, GrueUserError) or f"{module}.{name}" in INTERNAL, (
        f"{module}.{name} is neither a GrueUserError nor listed as internal in this test")


def _app_raising(err: Exception) -> typer.Typer:
    app = typer.Typer(cls=GrueGroup)

    @app.command()
    def boom() -> None:
        raise err

    @app.command()
    def other() -> None:  # a second command, so typer keeps the group (and its error handling)
        pass
    return app


@pytest.mark.parametrize("make", [
    lambda: importlib.import_module("grue.config.cross_fields").CrossFieldError("model.lora.alpha needs a rank"),
    lambda: importlib.import_module("grue.metrics.base").MetricUnavailable("coverage needs lemminflect"),
    lambda: type("BrandNewError", (GrueUserError,), {})("a new kind of mistake"),
])
def test_any_user_error_is_one_line_and_exit_2(make):
    err = make()
    result = CliRunner().invoke(_app_raising(err), ["boom"])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"error: {err}"


def test_a_bug_is_not_a_user_error():
    assert not is_user_error(ValueError("an index off by one"))
    result = CliRunner().invoke(_app_raising(KeyError("oops")), ["boom"])
    assert result.exit_code == 1 and "internal error" in result.output
