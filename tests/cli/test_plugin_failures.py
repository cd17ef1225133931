"""A plug-in that cannot be loaded is the user's to fix, so it is one `error:` line naming the plug-in and what
went wrong, exit code 2, no traceback (issues 42 and 45): a misspelt module, one raising or with a syntax error
at import, one calling sys.exit at import (grue used to exit 0 and print nothing), one registering a built-in algorithm's name again. A Python task file calling
sys.exit while imported is refused the same way. Each runs the real CLI in its own process: plug-ins are
imported once per process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGINS = {
    "raising_plugin": ('raise RuntimeError("boom")\n', "failed while being imported: RuntimeError: boom"),
    "exiting_plugin": ("import sys\nsys.exit(0)\n", "called sys.exit(0) while being imported"),
    "syntax_plugin": ("def f(:\n", "failed while being imported: SyntaxError"),
    "no_such_plugin": (None, "no module named 'no_such_plugin'; check its spelling in GRUE_PLUGINS"),
    "duplicate_plugin": ("import dataclasses\nfrom grue.train.registry import get_algorithm, register_algorithm\n"
                         "register_algorithm(dataclasses.replace(get_algorithm('grpo'), name='ppo'))\n",
                         "ValueError: algorithm 'ppo' is registered twice with different settings"),
}


def grue(args: list[str], folder: Path, **env: str) -> subprocess.CompletedProcess:
    code = "import sys; import cli; sys.argv = ['grue', *sys.argv[1:]]; cli.main()"
    paths = os.pathsep.join([str(folder), str(Path.cwd())])
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": paths, "OMP_NUM_THREADS": "1", **env})


@pytest.mark.parametrize("name", list(PLUGINS))
def test_a_plugin_that_cannot_load_is_one_error_line(name, tmp_path):
    source, expected = PLUGINS[name]
    if source is not None:
        (tmp_path / f"{name}.py").write_text(source)
    proc = grue(["algos"], tmp_path, GRUE_PLUGINS=name)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: plugin '{name}'") and expected in lines[0], proc.stderr


def test_a_task_file_calling_sys_exit_is_refused(tmp_path):
    task = tmp_path / "quits.py"
    task.write_text("import sys\nsys.exit(3)\n")
    proc = grue(["config", f"task={task}", "algo=zero_shot"], tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "called sys.exit(3) while being imported" in proc.stderr, proc.stderr
