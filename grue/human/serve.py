"""Serve a study's rater app with waitress, a production WSGI server with a thread pool."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from waitress.server import create_server

from grue.human.app import create_app
from grue.human.study import LINKS_FILE, StudyError

DEFAULT_HOST = "127.0.0.1"  # raters elsewhere need an explicit --host
THREADS = 8


def rater_links(study_dir: Path) -> list[tuple[str, str]]:
    """(rater, link path) of each line of the study's links file; a missing or malformed file is a
    StudyError naming it (the links are written once, by make-study, and are the raters' only way in)."""
    from grue.storage.inputs import InputError, read_text

    path = Path(study_dir) / LINKS_FILE
    try:
        text = read_text(path, "rater links file")
    except InputError as err:
        raise StudyError(f"{err}; make-study writes it with the study, and it cannot be made again") from None
    links, bad = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if len(parts) == 2 and parts[1].startswith("/r/"):
            links.append((parts[0], parts[1]))
        elif line.strip():
            bad.append(number)
    if bad or not links:
        where = f"line(s) {', '.join(map(str, bad))} are not '<rater> /r/<token>'" if bad else "it lists no rater"
        raise StudyError(f"{path}: {where}")
    return links


def serve(study_dir: Path, host: str = DEFAULT_HOST, port: int = 8000, echo: Callable[[str], None] = partial(print, flush=True)) -> None:
    """Run until interrupted; prints the URL and each rater's link (give each rater only their own)."""
    links = rater_links(study_dir)
    server = create_server(create_app(study_dir), host=host, port=port, threads=THREADS)
    base = f"http://{host if ':' not in host else f'[{host}]'}:{server.effective_port}"
    echo(f"serving {study_dir} at {base}")
    for rater, path in links:
        echo(f"  {rater}: {base}{path}")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
