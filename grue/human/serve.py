"""Serve a study's rater app with waitress, a production WSGI server with a thread pool."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from waitress.server import create_server

from grue.human.app import create_app
from grue.human.study import LINKS_FILE

DEFAULT_HOST = "127.0.0.1"  # raters elsewhere need an explicit --host
THREADS = 8


def serve(study_dir: Path, host: str = DEFAULT_HOST, port: int = 8000, echo: Callable[[str], None] = partial(print, flush=True)) -> None:
    """Run until interrupted; prints the URL and each rater's link (give each rater only their own)."""
    server = create_server(create_app(study_dir), host=host, port=port, threads=THREADS)
    base = f"http://{host if ':' not in host else f'[{host}]'}:{server.effective_port}"
    echo(f"serving {study_dir} at {base}")
    for line in (Path(study_dir) / LINKS_FILE).read_text(encoding="utf-8").splitlines():
        rater, path = line.split()
        echo(f"  {rater}: {base}{path}")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
