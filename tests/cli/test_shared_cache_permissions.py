"""An asset built into the cache is readable by colleagues sharing GRUE_CACHE, whatever temporary
files the builder used."""
from __future__ import annotations

import os
import stat
import tempfile

from grue.assets.build_once import build_once


def test_files_a_builder_writes_as_0600_are_shared_under_the_umask(tmp_path):
    def build(out):
        fd, tmp = tempfile.mkstemp(dir=out)  # 0600, as save routines that rename a temp file leave it
        os.write(fd, b"weights")
        os.close(fd)
        os.replace(tmp, out / "model.safetensors")
        (out / "sub").mkdir(mode=0o700)
        (out / "config.json").write_text("{}")

    old = os.umask(0o022)
    try:
        target = build_once(tmp_path / "cache" / "model", build)
    finally:
        os.umask(old)
    assert stat.S_IMODE((target / "model.safetensors").stat().st_mode) == 0o644
    assert stat.S_IMODE((target / "sub").stat().st_mode) == 0o755
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
