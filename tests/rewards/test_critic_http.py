"""The chat-completions backend against a real HTTP server on this machine that speaks the protocol."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from grue.rewards.critic.http_backend import ChatCompletionsCritic


class ChatServer:
    """An OpenAI-compatible /v1/chat/completions endpoint with a scripted failure plan.

    `plan` maps a prompt to the statuses to answer before succeeding ("slow" sleeps past the client's
    time-out); a success answers "echo: <prompt>". Every request is recorded with its headers and time.
    """

    def __init__(self, delay_s: float = 0.0) -> None:
        self.plan: dict[str, list] = {}
        self.requests: list[dict] = []
        self.delay_s = delay_s
        self.retry_after = "0.05"
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest's output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][0]["content"]
                with server.lock:
                    server.requests.append({"path": self.path, "body": body, "time": time.monotonic(),
                                            "auth": self.headers.get("Authorization")})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    step = server.plan.get(prompt, []).pop(0) if server.plan.get(prompt) else 200
                try:
                    time.sleep(1.0 if step == "slow" else server.delay_s)
                    if step != 200 and step != "slow":
                        self.send_response(step)
                        self.send_header("Retry-After", server.retry_after)
                        self.end_headers()
                        return
                    reply = {"choices": [{"message": {"role": "assistant", "content": f"echo: {prompt}"}}]}
                    data = json.dumps(reply).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ChatServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def critic(server: ChatServer, **kwargs) -> ChatCompletionsCritic:
    settings = {"model": "judge-1", "concurrency": 4, "timeout_s": 0.5, "max_retries": 2, "backoff_s": 0.01}
    return ChatCompletionsCritic(server.url, **{**settings, **kwargs})


def test_answers_come_back_in_order_with_the_protocol_fields_and_the_key():
    with ChatServer() as server:
        answers = critic(server, api_key="sk-test", max_new_tokens=7).judge(["a", "b", "c"])
    assert answers == ["echo: a", "echo: b", "echo: c"]
    first = server.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["body"]["model"] == "judge-1" and first["body"]["max_tokens"] == 7
    assert first["body"]["temperature"] == 0 and first["body"]["messages"][0]["role"] == "user"
    assert first["auth"] == "Bearer sk-test"


def test_requests_run_concurrently_up_to_the_limit():
    with ChatServer(delay_s=0.2) as server:
        start = time.monotonic()
        critic(server, concurrency=3).judge([str(i) for i in range(6)])
        took = time.monotonic() - start
    assert server.max_in_flight == 3
    assert took < 0.2 * 6 * 0.75  # clearly faster than one at a time


def test_429_and_5xx_are_retried_until_they_succeed():
    with ChatServer() as server:
        server.plan = {"x": [429, 503]}
        assert critic(server).judge(["x"]) == ["echo: x"]
    assert len(server.requests) == 3


def test_a_timed_out_request_is_retried_and_a_hopeless_one_gives_none_not_an_error():
    with ChatServer() as server:
        server.plan = {"once": ["slow"], "always": ["slow"] * 3}
        client = critic(server, timeout_s=0.3, max_retries=2)
        assert client.judge(["once", "always"]) == ["echo: once", None]
    assert "timed out" in client.last_error.lower() or "timeout" in client.last_error.lower()


def test_client_errors_are_not_retried():
    with ChatServer() as server:
        server.plan = {"bad": [401]}
        client = critic(server, max_retries=3)
        assert client.judge(["bad"]) == [None]
    assert len(server.requests) == 1 and "401" in client.last_error


def test_the_rate_limit_spaces_request_starts():
    with ChatServer() as server:
        critic(server, requests_per_minute=600).judge(["a", "b", "c", "d"])  # one every 0.1 s
    starts = sorted(r["time"] for r in server.requests)
    assert starts[-1] - starts[0] >= 0.3 - 0.02


def test_a_server_that_is_not_there_gives_none_after_the_retries():
    with ChatServer() as server:
        url = server.url
    client = ChatCompletionsCritic(url, "judge-1", max_retries=1, backoff_s=0.01, timeout_s=0.5)
    assert client.judge(["a"]) == [None]
    assert client.last_error


@pytest.mark.parametrize("reply", [b"not json", b'{"choices": []}', b'{"choices": [{"message": {"content": 5}}]}'])
def test_a_200_that_is_not_a_completion_gives_none(reply):
    with ChatServer() as server:
        class Broken(server.httpd.RequestHandlerClass):
            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        server.httpd.RequestHandlerClass = Broken
        client = critic(server)
        assert client.judge(["a"]) == [None]
    assert "unreadable" in client.last_error


@pytest.mark.parametrize("retry_after", ["86400", "inf", "1e308"])
def test_a_retry_after_above_the_cap_gives_the_prompt_up_instead_of_stalling(retry_after):
    from grue.rewards.critic.http_backend import MAX_RETRY_AFTER_S

    with ChatServer() as server:
        server.retry_after = retry_after
        server.plan = {"x": [503, 503, 503]}
        client = critic(server, max_retries=2)
        start = time.monotonic()
        assert client.judge(["x"]) == [None]
        assert time.monotonic() - start < 5
    assert len(server.requests) == 1
    assert f"above the {MAX_RETRY_AFTER_S:g} s cap" in client.last_error


def test_a_retry_after_as_an_http_date_is_obeyed():
    import email.utils

    with ChatServer() as server:
        server.retry_after = email.utils.formatdate(time.time() - 5, usegmt=True)  # already past: retry now
        server.plan = {"x": [503]}
        assert critic(server).judge(["x"]) == ["echo: x"]
    assert len(server.requests) == 2
