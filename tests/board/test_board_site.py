"""The static site in a real headless browser: pages load cleanly, tables hold the expected rows, sorting works.

Runs Debian's chromium (/usr/bin/chromium) through Playwright; CI installs chromium (.ci/run). Without
either, the test skips and says why.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from board_fixtures import ALGO_SHIFT, ablation_pair, imdb_grid
from grue.board.export import export_board

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install -y chromium); CI installs it")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("site")
    imdb_grid(root / "runs", seeds=3, logs=True)
    _, written = export_board([root / "runs"], root / "out", ["html"])
    return written["html"][0].parent


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield instance
        instance.close()


def _open(browser, path: Path):
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url}"))
    page.on("request", lambda r: problems.append(f"non-local request: {r.url}")
            if not r.url.startswith(("file:", "data:")) else None)
    page.goto(path.as_uri(), wait_until="load")
    return page, problems


def test_every_page_loads_without_console_errors(site, browser):
    pages = sorted(site.glob("*.html"))
    assert {p.name for p in pages} >= {"index.html", "task-imdb.html"}
    for path in pages:
        page, problems = _open(browser, path)
        assert page.locator("table.sortable").count() > 0, path.name
        images = page.eval_on_selector_all("img", "els => els.map(e => e.complete && e.naturalWidth > 0)")
        assert all(images), f"broken image on {path.name}"
        assert problems == [], f"{path.name}: {problems}"
        page.close()


def test_overall_board_has_one_row_per_algorithm(site, browser):
    page, _ = _open(browser, site / "index.html")
    table = page.locator("#overall-runs-mini").locator("xpath=following-sibling::div[1]//table")
    assert table.locator("tbody tr").count() == len(ALGO_SHIFT)
    paper = page.locator("#overall-paper-paper").locator("xpath=following-sibling::div[1]//table")
    assert paper.locator("tbody tr.ref").count() == paper.locator("tbody tr").count() >= 6


def _column(table, index: int) -> list[str]:
    return table.locator("tbody tr").evaluate_all(
        f"rows => rows.map(r => r.cells[{index}].getAttribute('data-sort') ?? r.cells[{index}].textContent.trim())")


def test_headers_sort_the_table(site, browser):
    page, problems = _open(browser, site / "task-imdb.html")
    table = page.locator("#imdb-test").locator("xpath=following-sibling::div[1]//table")
    headers = table.locator("thead th")
    labels = headers.all_inner_texts()
    sentiment = next(i for i, text in enumerate(labels) if text.startswith("sentiment"))
    headers.nth(sentiment).click()
    ascending = [float(v) for v in _column(table, sentiment)]
    assert ascending == sorted(ascending) and len(ascending) == len(ALGO_SHIFT)
    assert headers.nth(sentiment).get_attribute("aria-sort") == "ascending"
    headers.nth(sentiment).click()
    assert [float(v) for v in _column(table, sentiment)] == sorted(ascending, reverse=True)
    headers.nth(0).click()  # a text column sorts alphabetically
    names = _column(table, 0)
    assert names == sorted(names, key=str.lower) or names == sorted(names)
    assert problems == []


def test_task_page_shows_curves_and_escaped_samples(site, browser):
    page, _ = _open(browser, site / "task-imdb.html")
    assert page.locator("img[src^='curves-imdb']").count() == 1
    assert page.locator(".sample").count() == 4
    first = page.locator(".sample").first
    assert first.locator(".gen").count() == len(ALGO_SHIFT)
    assert "<b>not bold</b>" in first.locator(".gen").first.inner_text()  # generations are escaped, never HTML


@pytest.fixture(scope="module")
def ablation_site(tmp_path_factory) -> Path:
    """Two seeds of zero-shot, PPO and NLPO plus a PPO kl.target ablation pair (two seeds each)."""
    root = tmp_path_factory.mktemp("ablation")
    imdb_grid(root / "runs", seeds=2, algos=("zero_shot", "nlpo"), logs=True)
    ablation_pair(root / "runs", seeds=2)
    _, written = export_board([root / "runs"], root / "out", ["html"])
    return written["html"][0].parent


def test_ablation_pages_show_settings_headline_first_and_real_seed_counts(ablation_site, browser):
    page, problems = _open(browser, ablation_site / "index.html")
    overall = page.locator("#overall-runs-mini").locator("xpath=following-sibling::div[1]//table")
    headers = overall.locator("thead th").all_inner_texts()
    assert headers[2:6] == ["Task score ↑", "Naturalness ↑", "GRUE score ↑", "Mean win rate ↑"]
    ppo = overall.locator("tbody tr", has_text="PPO").first
    assert ppo.locator("td").nth(1).inner_text() == "1/7"
    assert ppo.locator("td").nth(6).get_attribute("title").startswith("n=2 seed(s); 95% CI")
    assert "kl.target" in page.locator("main > p").first.inner_text()
    assert problems == []
    task, problems = _open(browser, ablation_site / "task-imdb.html")
    table = task.locator("#imdb-test").locator("xpath=following-sibling::div[1]//table")
    labels = table.locator("thead th").all_inner_texts()
    setting = labels.index("Setting")
    assert sorted(_column(table, setting)) == ["", "", "kl.target=0.5", "kl.target=null"]  # "—" sorts as empty
    images = task.eval_on_selector_all("img", "els => els.map(e => e.complete && e.naturalWidth > 0)")
    assert images and all(images) and problems == []
