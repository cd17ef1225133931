"""The real server (waitress, a separate process) under real concurrent HTTP clients, and killed."""
from __future__ import annotations

import json
import os
import signal
import threading

from sqlalchemy import select

from grue.human.db import answers, open_database
from human_fixtures import build_study
from live_server import current_item, live_server, request


def _stored(study) -> dict[tuple[str, str], dict]:
    engine = open_database(study.db_path)
    with engine.begin() as conn:
        rows = conn.execute(select(answers.c.rater_id, answers.c.item_id, answers.c.answer)).all()
    engine.dispose()
    return {(rater, item): json.loads(answer) for rater, item, answer in rows}


def _rate(port: int, token: str, rater: str, acknowledged: dict, errors: list, start: threading.Barrier | None,
          stop: threading.Event | None = None) -> None:
    """Answer every item; record each answer the server acknowledged (303) and anything unexpected."""
    if start is not None:
        start.wait()
    try:
        while (item := current_item(port, token)) is not None and not (stop and stop.is_set()):
            value = str(1 + (hash((rater, item)) % 5))
            status, body = request("POST", port, f"/r/{token}", {"item": item, "sentiment": value, "coherence": value})
            if status != 303:
                errors.append((rater, item, status, body[:200]))
                return
            acknowledged[(rater, item)] = {"sentiment": int(value), "coherence": int(value)}
    except OSError as err:  # the server was killed under us
        errors.append((rater, "connection", repr(err)))


def test_twenty_raters_submitting_at_once_lose_nothing(tmp_path):
    study, tokens = build_study(tmp_path, samples=6, pool=20, raters_per_item=3)
    acknowledged: dict = {}
    errors: list = []
    with live_server(study.root) as (_, port):
        start = threading.Barrier(len(tokens))
        threads = [threading.Thread(target=_rate, args=(port, token, rater, acknowledged, errors, start))
                   for rater, token in tokens.items()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
    assert errors == []
    assigned = 6 * 2 * 3 + 2 * len(tokens)  # judged items x raters per item, plus two checks per rater
    assert len(acknowledged) == assigned
    assert _stored(study) == acknowledged


def test_a_killed_server_keeps_every_acknowledged_answer_and_raters_resume(tmp_path):
    study, tokens = build_study(tmp_path, samples=6, pool=6, raters_per_item=3)
    acknowledged: dict = {}
    errors: list = []
    with live_server(study.root, via_cli=True) as (process, port):
        threads = [threading.Thread(target=_rate, args=(port, token, rater, acknowledged, errors, None))
                   for rater, token in tokens.items()]
        for thread in threads:
            thread.start()
        while len(acknowledged) < 20:
            threads[0].join(timeout=0.05)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        for thread in threads:
            thread.join(timeout=60)
    stored = _stored(study)
    assert len(acknowledged) >= 20
    assert all(stored[key] == value for key, value in acknowledged.items())  # nothing acknowledged was lost
    with live_server(study.root) as (_, port):
        errors.clear()
        for rater, token in tokens.items():
            _rate(port, token, rater, acknowledged, errors, None)
    assert errors == []
    assert len(_stored(study)) == 6 * 2 * 3 + 2 * len(tokens)


def test_the_server_listens_on_localhost_by_default_and_says_where(tmp_path):
    study, tokens = build_study(tmp_path)
    with live_server(study.root) as (process, port):
        assert request("GET", port, "/")[0] == 404  # no index: nothing is listed without a rater link
        process.terminate()
        banner = process.stdout.read().decode()
    assert f"serving {study.root} at http://127.0.0.1:{port}" in banner
    assert f"rater-01: http://127.0.0.1:{port}/r/{tokens['rater-01']}" in banner
