"""A rater in a real browser (Debian's chromium through Playwright, as the board site's test):
opens the link, reads, rates, reloads, resumes and finishes; the page loads nothing from elsewhere."""
from __future__ import annotations

import shutil

import pytest

from human_fixtures import build_study
from live_server import live_server
from test_server import _stored

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install -y chromium); CI installs it")


def test_a_rater_reads_rates_reloads_resumes_and_finishes(tmp_path):
    study, tokens = build_study(tmp_path, samples=2)
    with live_server(study.root) as (_, port), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("request", lambda r: problems.append(f"non-local request {r.url}")
                if not r.url.startswith(f"http://127.0.0.1:{port}/") else None)
        link = f"http://127.0.0.1:{port}/r/{tokens['rater-01']}"
        page.goto(link)
        seen = []
        for step in range(1, 7):
            assert page.locator("#progress").inner_text() == f"Item {step} of 6"
            assert page.locator("#text").is_visible() and page.locator("#prompt").is_visible()
            item = page.locator("input[name=item]").get_attribute("value")
            seen.append(item)
            if step == 3:  # stop and come back: the same item, the count kept
                page.reload()
                assert page.locator("input[name=item]").get_attribute("value") == item
                assert page.locator("#progress").inner_text() == "Item 3 of 6"
            page.locator("input[name=sentiment][value='4']").check()
            page.locator("input[name=coherence][value='2']").check()
            page.get_by_role("button", name="Submit and continue").click()
            page.wait_for_load_state()
        assert "answered all 6 items" in page.locator("#done").inner_text()
        page.go_back()  # the browser's back button cannot resubmit or reopen an answered item
        assert page.locator("#done").count() == 1
        browser.close()
    assert problems == []
    assert len(set(seen)) == 6
    assert _stored(study) == {("rater-01", item): {"sentiment": 4, "coherence": 2} for item in seen}


def test_cnn_dailymail_scales_appear_only_after_the_reading_time(tmp_path):
    study, tokens = build_study(tmp_path, task="cnn_dailymail", samples=2)
    with live_server(study.root) as (_, port), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.clock.install()  # the page's timers run on a fake clock: 15 s pass without waiting
        page.goto(f"http://127.0.0.1:{port}/r/{tokens['rater-01']}")
        assert page.locator("#text").is_visible() and page.locator("#wait").is_visible()
        assert not page.locator("#scales").is_visible()
        page.clock.run_for(8_000)
        assert not page.locator("#scales").is_visible()
        page.clock.run_for(8_000)
        assert page.locator("#scales").is_visible() and not page.locator("#wait").is_visible()
        browser.close()
