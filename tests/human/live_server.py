"""A real `grue human serve` process on a free local port, and a small HTTP client for raters."""
from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.parse
from contextlib import contextmanager
from http.client import HTTPConnection
from pathlib import Path

ITEM_FIELD = re.compile(r'name="item" value="([^"]+)"')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The server without the CLI around it: `import cli` loads every command (scipy, pandas: seconds).
DIRECT = "import sys; from pathlib import Path; from grue.human.serve import serve; serve(Path(sys.argv[1]), port=int(sys.argv[2]))"


@contextmanager
def live_server(study_dir: Path, port: int | None = None, via_cli: bool = False):
    """Start the server process, wait until it answers, yield (process, port); stop it at the end."""
    port = port or free_port()
    command = (["-m", "grue", "human", "serve", f"study={study_dir}", "--port", str(port)] if via_cli
               else ["-c", DIRECT, str(study_dir), str(port)])
    process = subprocess.Popen([sys.executable, *command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                request("GET", port, "/")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {process.stdout.read().decode()}")
                time.sleep(0.2)
        yield process, port
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        process.stdout.close()


def request(method: str, port: int, path: str, fields: dict[str, str] | None = None) -> tuple[int, str]:
    connection = HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        body = urllib.parse.urlencode(fields) if fields is not None else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def current_item(port: int, token: str) -> str | None:
    """The item id on the rater's page, None when they are done."""
    status, page = request("GET", port, f"/r/{token}")
    assert status == 200, page
    found = ITEM_FIELD.search(page)
    return found.group(1) if found else None
