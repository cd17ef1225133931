"""A cached asset's builder killed outright (`kill -9`) leaves its temporary folder behind; the next build of
the same asset removes it, and never touches a sibling asset's temporary folder (issue 46)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from grue.assets.build_once import build_once

ROOT = Path(__file__).resolve().parents[2]


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.is_dir())


def test_a_build_killed_outright_leaves_nothing_after_the_next_build(tmp_path):
    target = tmp_path / "comparisons-abc"
    started = tmp_path / "started"
    builder = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from grue.assets.build_once import build_once

        def build(folder):
            (folder / "half.jsonl").write_text("{{}}\\n")
            Path({str(started)!r}).write_text("1")
            time.sleep(60)

        build_once(Path({str(target)!r}), build, marker="done")
    """)
    proc = subprocess.Popen([sys.executable, "-c", builder], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the builder did not start"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    leftovers = _hidden(tmp_path)
    assert len(leftovers) == 1 and leftovers[0].startswith(".comparisons-abc."), leftovers  # what kill -9 leaves
    sibling = tmp_path / ".comparisons-abc.v2.k3j5x9qa"  # a build of comparisons-abc.v2, under its own lock
    sibling.mkdir()

    def build(folder: Path) -> None:
        (folder / "done").write_text("whole\n")

    assert build_once(target, build, marker="done") == target
    assert (target / "done").read_text() == "whole\n" and not (target / "half.jsonl").exists()
    assert _hidden(tmp_path) == [sibling.name]
