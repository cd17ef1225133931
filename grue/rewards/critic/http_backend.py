"""An OpenAI-compatible chat-completions endpoint as the critic (`critic.backend=http`).

POST {base_url}/chat/completions with one user message per prompt, temperature 0. Requests run
`concurrency` at a time; a request-start rate limit (`requests_per_minute`) is shared by all of them.
Time-outs, connection errors, 429 and 5xx answers are retried with exponential backoff (the server's
Retry-After wins when it gives one, up to MAX_RETRY_AFTER_S: a server asking for longer, or for an
unreadable or infinite wait, is taken as an answer for this prompt, and the prompt fails instead of
stalling the run for a day); other 4xx answers (a wrong key, an unknown model) are not, since
asking again cannot help. A prompt whose retries run out gets None and the run goes on; the last
error is kept for the iteration's log line. The key is read from the environment variable named by
`critic.api_key_env` and never stored in the config.
"""
from __future__ import annotations

import email.utils
import json
import math
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Sequence

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_RETRY_AFTER_S = 300.0  # the longest Retry-After obeyed; a rollout waits on its slowest prompt


class RateLimiter:
    """At most `per_minute` request starts a minute, spaced evenly; None means no limit."""

    def __init__(self, per_minute: Optional[float]) -> None:
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self.next_start = 0.0
        self.lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self.lock:
            now = time.monotonic()
            start = max(now, self.next_start)
            self.next_start = start + self.interval
        time.sleep(max(0.0, start - now))


class ChatCompletionsCritic:
    def __init__(self, base_url: str, model: str, api_key: Optional[str] = None, concurrency: int = 4,
                 timeout_s: float = 60.0, max_retries: int = 4, backoff_s: float = 1.0,
                 requests_per_minute: Optional[float] = None, max_new_tokens: int = 96) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key = model, api_key
        self.concurrency, self.timeout_s = concurrency, timeout_s
        self.max_retries, self.backoff_s = max_retries, backoff_s
        self.limiter = RateLimiter(requests_per_minute)
        self.max_new_tokens = max_new_tokens
        self.identity = f"chat:{model}:t0:{max_new_tokens}"
        self.last_error: Optional[str] = None

    def judge(self, prompts: Sequence[str]) -> list[Optional[str]]:
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self._ask, prompts))

    def _request(self, prompt: str) -> urllib.request.Request:
        body = {"model": self.model, "messages": [{"role": "user", "content": prompt}], "temperature": 0,
                "max_tokens": self.max_new_tokens}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return urllib.request.Request(self.url, json.dumps(body).encode(), headers, method="POST")

    def _ask(self, prompt: str) -> Optional[str]:
        for attempt in range(self.max_retries + 1):
            self.limiter.wait()
            wait = self.backoff_s * 2 ** attempt
            try:
                with urllib.request.urlopen(self._request(prompt), timeout=self.timeout_s) as response:
                    return _content(json.loads(response.read()))
            except urllib.error.HTTPError as err:
                self.last_error = f"HTTP {err.code} from {self.url}"
                if err.code not in RETRYABLE_STATUS:
                    return None
                asked = _retry_after(err)
                if asked is not None and not asked <= MAX_RETRY_AFTER_S:
                    self.last_error = (f"HTTP {err.code} from {self.url} asking to retry after {asked:g} s, "
                                       f"above the {MAX_RETRY_AFTER_S:g} s cap; prompt given up")
                    return None
                wait = asked if asked is not None else wait
            except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
                self.last_error = f"{type(err).__name__}: {getattr(err, 'reason', err)}"
            except (ValueError, KeyError, IndexError, TypeError) as err:  # a 200 whose body is not a completion
                self.last_error = f"unreadable completion: {err}"
                return None
            if attempt < self.max_retries:
                time.sleep(wait)
        return None


def _content(completion: dict) -> str:
    content = completion["choices"][0]["message"]["content"]
    if not isinstance(content, str):
        raise TypeError("message content is not text")
    return content


def _retry_after(err: urllib.error.HTTPError) -> Optional[float]:
    """The server's Retry-After in seconds (delta-seconds or an HTTP date); None when absent or
    unreadable (the backoff then applies); infinity for an infinite one."""
    raw = (err.headers.get("Retry-After", "") if err.headers is not None else "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - time.time()
    return None if math.isnan(seconds) else max(0.0, seconds)
