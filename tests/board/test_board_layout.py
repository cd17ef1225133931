"""The exported site read at 1280 px in a real browser (Debian's chromium through Playwright, as
test_board_site.py): a notice that mini numbers are not comparable to the paper stands above every table
holding mini rows; every header spans exactly its column and is aligned as its cells are; the headline
columns (the algorithm, the overall scores, each task's Table 1 metrics) are in view without scrolling
sideways, and the algorithm column stays in view when a wide table is scrolled."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from board_fixtures import results_doc, write_logs, write_run
from grue.board.export import export_board

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install -y chromium); CI installs it")

WIDTH = 1280
ALGOS = ("zero_shot", "ppo", "nlpo")
OVERALL_HEADLINE = ["Algorithm", "Task score ↑", "Naturalness ↑", "GRUE score ↑", "Mean win rate ↑"]


def _task_specs():
    from tasks import get_task, grue_task_names

    return {name: get_task(name) for name in grue_task_names()}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Mini runs of three algorithms, two seeds, on all seven tasks, every metric each task reports (the
    widest tables the board makes), exported with the paper's rows beside them; IMDB's runs with their logs."""
    root = tmp_path_factory.mktemp("layout")
    rng = random.Random(7)
    for task, spec in _task_specs().items():
        for algo in ALGOS:
            reward = None if algo in ("zero_shot", "supervised") else spec.rewards[0]
            for seed in range(2):
                metrics = {split: {m: rng.uniform(0.1, 0.9) * (30 if m == "perplexity" else 1) for m in spec.metrics}
                           for split in ("val", "test")}
                run_dir = write_run(root / "runs", results_doc(task, algo, seed, metrics, reward=reward))
                if task == "imdb":  # learning curves and the checkpoint-choice table too
                    write_logs(run_dir, algo, seed)
    _, written = export_board([root / "runs"], root / "out", ["html"])
    return written["html"][0].parent


@pytest.fixture(scope="module")
def page(site):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        view = browser.new_page(viewport={"width": WIDTH, "height": 900})
        yield view
        browser.close()


# Per table on the page: its heading, the notice above it, header and body cells' boxes and alignment,
# and where the scroll container is.
MEASURE = """() => Array.from(document.querySelectorAll('div.scroll')).map(box => {
  let heading = box.previousElementSibling, notices = [];
  while (heading && !/^H[1-6]$/.test(heading.tagName)) {
    if (heading.matches('p.notice')) notices.push(heading);
    heading = heading.previousElementSibling;
  }
  const table = box.querySelector('table');
  const rect = el => { const r = el.getBoundingClientRect(); return [r.left, r.right]; };
  const align = el => getComputedStyle(el).textAlign;
  const head = Array.from(table.tHead.rows[0].cells);
  return {
    heading: heading ? heading.textContent : '',
    notices: notices.map(n => ({text: n.textContent,
                                visible: n.offsetHeight > 0 && getComputedStyle(n).visibility === 'visible'})),
    box: rect(box),
    headers: head.map(th => ({text: th.textContent.replace(/\\s+/g, ' ').trim(), x: rect(th), align: align(th)})),
    rows: Array.from(table.tBodies[0].rows).map(tr => Array.from(tr.cells).map(td => ({
      text: td.textContent.trim(), x: rect(td), align: align(td)}))),
  };
})"""


def _tables(page, path: Path) -> list[dict]:
    page.goto(path.as_uri(), wait_until="load")
    return page.evaluate(MEASURE)


def _pages(site: Path) -> list[Path]:
    return [site / "index.html"] + sorted(site.glob("task-*.html"))


def _has_mini_rows(table: dict) -> bool:
    if table["heading"].startswith("Overall board — profile mini"):
        return True
    headers = [h["text"] for h in table["headers"]]
    return "Profile" in headers and any(row[headers.index("Profile")]["text"] == "mini" for row in table["rows"])


def test_every_table_with_mini_rows_has_the_notice_above_it(site, page):
    seen = 0
    for path in _pages(site):
        for table in _tables(page, path):
            notices = [n for n in table["notices"] if "not comparable to the paper" in n["text"]]
            if _has_mini_rows(table):
                seen += 1
                assert len(notices) == 1 and notices[0]["visible"], f"{path.name}: {table['heading']}"
            else:
                assert notices == [], f"{path.name}: {table['heading']} has no mini row"
    assert seen >= 1 + 2 * 7  # the overall mini board and both splits of every task


def test_headers_span_their_columns_and_align_as_their_cells(site, page):
    checked = 0
    for path in _pages(site):
        for table in _tables(page, path):
            for i, header in enumerate(table["headers"]):
                for row in table["rows"]:
                    cell = row[i]
                    assert abs(cell["x"][0] - header["x"][0]) < 1 and abs(cell["x"][1] - header["x"][1]) < 1, \
                        f"{path.name}: {table['heading']}: column {header['text']!r} and its cells differ in extent"
                first = table["rows"][0][i] if table["rows"] else None
                if first is not None:
                    where = f"{path.name}: {table['heading']}: header {header['text']!r}"
                    assert header["align"] == first["align"], f"{where} is {header['align']}, its cells {first['align']}"
                checked += 1
    assert checked > 300


def _in_view(table: dict, header: dict) -> bool:
    left, right = table["box"]
    return header["x"][0] >= left - 0.5 and header["x"][1] <= min(right, WIDTH) + 0.5


def test_headline_columns_are_in_view_at_1280_px(site, page):
    specs = _task_specs()
    for table in _tables(page, site / "index.html"):
        if table["heading"].startswith(("Overall board", "Paper (published numbers")):
            texts = [h["text"] for h in table["headers"]]
            assert texts[:2] == ["Algorithm", "Tasks"], texts
            for name in OVERALL_HEADLINE:
                assert _in_view(table, table["headers"][texts.index(name)]), f"{table['heading']}: {name} is cut"
    for task, spec in specs.items():
        tables = _tables(page, site / f"task-{task}.html")
        metric_tables = [t for t in tables if t["heading"].startswith(f"{task} (")]
        assert len(metric_tables) >= 2
        for table in metric_tables:
            names = [h["text"].split(" ")[0] for h in table["headers"]]
            wanted = ["Algorithm", *spec.task_metrics, *spec.naturalness_metrics]
            for name in wanted:
                assert _in_view(table, table["headers"][names.index(name)]), f"{table['heading']}: {name} is cut"
    page.goto((site / "index.html").as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH  # the page itself never scrolls sideways


def test_the_algorithm_column_stays_in_view_when_a_wide_table_scrolls(site, page):
    page.goto((site / "task-cnn_dailymail.html").as_uri(), wait_until="load")
    box = page.locator("#cnn_dailymail-test").locator("xpath=following-sibling::div[1]")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth"), "the fixture's widest table should scroll"
    box.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    left = box.evaluate("el => el.getBoundingClientRect().left")
    first = box.locator("tbody tr").first.locator("td").first
    assert first.inner_text().startswith("Zero-Shot")
    assert abs(first.bounding_box()["x"] - left) < 1  # pinned at the left edge, not scrolled away
    last = box.locator("thead th").last.bounding_box()
    assert last["x"] + last["width"] <= left + box.evaluate("el => el.clientWidth") + 1  # the far end is reached
