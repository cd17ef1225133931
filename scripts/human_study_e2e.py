"""The small end-to-end human study quoted in docs/human.md: a study built from real runs, answered in
a real browser (Debian's chromium through Playwright) by scripted raters that behave differently, then
the report, and the leaderboard's human page (ratings) or a reward model trained on the answers
(comparisons). Screenshots of the rater page, the report page and the human page land in out=.

    python scripts/human_study_e2e.py runs=<runs dir> out=<dir> kind=ratings samples=20
    python scripts/human_study_e2e.py runs=<runs dir> out=<dir> kind=comparisons samples=30

The scripted raters are not people: each reads a text through a small word-list heuristic
(positive minus negative words for sentiment; repetition and broken words for coherence) and adds
its own habit, so agreement is neither perfect nor absent and one rater should fail the
qualification rules:
  careful   heuristic with a little noise, reads each item for a moment
  lenient   heuristic plus one point, with noise
  noisy     heuristic with a lot of noise
  rusher    random answers, no reading time, ignores attention checks
"""
from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

POSITIVE = set("good great love loved best fun funny enjoy enjoyed wonderful beautiful excellent brilliant amazing "
               "perfect nice charming delightful moving strong smart fine entertaining".split())
NEGATIVE = set("bad worst boring dull awful terrible waste poor stupid mess weak hate hated fails failed "
               "annoying lame tedious ugly disappointing".split())
BEHAVIOURS = {"careful": (0.0, 0.4, 0.6), "lenient": (1.0, 0.5, 0.4), "noisy": (0.0, 1.3, 0.3),
              "rusher": (None, None, 0.0)}  # bias, noise, seconds spent reading


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def sentiment_guess(text: str) -> float:
    words = _words(text)
    return 3.0 + sum(w in POSITIVE for w in words) - sum(w in NEGATIVE for w in words)


def coherence_guess(text: str) -> float:
    words = _words(text)
    if len(words) < 3:
        return 1.5
    repeated = 1 - len(set(words)) / len(words)
    broken = sum(len(w) == 1 and w not in ("a", "i") for w in words) / len(words)
    return 4.5 - 4 * repeated - 6 * broken


def _clip(value: float) -> int:
    return int(min(5, max(1, round(value))))


def _rate(page, behaviour: str, rng: random.Random, axes: list[str]) -> None:
    bias, noise, _ = BEHAVIOURS[behaviour]
    text = page.locator("#text").inner_text()
    check = re.search(r"rate this text (\d) on every scale", text)
    for axis in axes:
        if behaviour == "rusher":
            value = rng.randint(1, 5)
        elif check:
            value = int(check.group(1))
        else:
            guess = sentiment_guess(text) if axis == "sentiment" else coherence_guess(text)
            value = _clip(guess + bias + rng.gauss(0, noise))
        page.locator(f"input[name={axis}][value='{value}']").check()


def _choose(page, behaviour: str, rng: random.Random) -> None:
    texts = page.locator(".candidate-text").all_inner_texts()
    if behaviour == "rusher":
        pick = rng.randrange(len(texts))
    elif any("attention check" in t for t in texts):
        pick = next(i for i, t in enumerate(texts) if "attention check" in t)
    else:
        bias, noise, _ = BEHAVIOURS[behaviour]
        pick = max(range(len(texts)), key=lambda i: sentiment_guess(texts[i]) + rng.gauss(0, noise + 0.3))
    page.locator("input[name=choice]").nth(pick).check()


def _answer_all(page, link: str, behaviour: str, seed: int, kind: str, axes: list[str], shot: Path | None) -> int:
    rng = random.Random(seed)
    page.goto(link)
    answered = 0
    while page.locator("input[name=item]").count():
        time.sleep(BEHAVIOURS[behaviour][2])
        if shot is not None and answered == 1:
            page.screenshot(path=str(shot), full_page=True)
        _rate(page, behaviour, rng, axes) if kind == "ratings" else _choose(page, behaviour, rng)
        page.get_by_role("button", name="Submit and continue").click()
        page.wait_for_load_state()
        answered += 1
    return answered


def main(argv: list[str]) -> None:
    options = dict(arg.split("=", 1) for arg in argv)
    runs, out, kind = Path(options["runs"]), Path(options["out"]), options.get("kind", "ratings")
    study = out / f"study-{kind}"
    grue = [sys.executable, "-m", "grue", "human"]
    subprocess.run([*grue, "make-study", f"kind={kind}", "task=imdb", f"runs={runs}", f"out={study}",
                    f"samples={options.get('samples', 20)}", "raters=3", "pool=4", "seed=0"], check=True)
    links = [line.split() for line in (study / "links.txt").read_text().splitlines()]
    port = options.get("port", "8765")
    server = subprocess.Popen([*grue, "serve", f"study={study}", "--port", port], stdout=subprocess.PIPE, text=True)
    try:
        print(server.stdout.readline().rstrip())  # "serving ... at ..."
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        started = time.monotonic()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            for n, ((rater, path), behaviour) in enumerate(zip(links, BEHAVIOURS)):
                shot = out / f"rater_page_{kind}.png" if n == 0 else None
                count = _answer_all(page, f"http://127.0.0.1:{port}{path}", behaviour, n, kind,
                                    ["sentiment", "coherence"], shot)
                print(f"{rater} ({behaviour}): {count} items answered in the browser")
            browser.close()
        print(f"browser answering took {time.monotonic() - started:.0f} s")
    finally:
        server.terminate()
        server.wait()
    for qualify in ("no", "yes"):
        report_dir = study / f"report-qualify-{qualify}"
        subprocess.run([*grue, "report", f"study={study}", f"qualify={qualify}", "min_seconds=0.2",
                        f"out={report_dir}"], check=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto((study / "report-qualify-yes" / "report.html").resolve().as_uri())
        page.screenshot(path=str(out / f"report_page_{kind}.png"), full_page=True)
        browser.close()
    if kind == "comparisons":  # the answers train a reward model (docs/learned_rewards.md)
        comparisons = out / "comparisons.jsonl"
        subprocess.run([*grue, "export-comparisons", f"study={study}", f"out={comparisons}", "qualify=yes",
                        "min_seconds=0.2"], check=True)
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "grue", "label", "train", f"comparisons={comparisons}",
                        f"out={out / 'reward-model'}", "backbone=packaged:minilm", "task=imdb", "profile=mini"],
                       check=True)
        print(f"reward model trained in {time.monotonic() - started:.0f} s")
    else:  # the leaderboard's human page
        subprocess.run([sys.executable, "-m", "grue", "leaderboard", "export", f"runs={runs}", f"studies={study}",
                        f"out={out / 'board'}", "format=html,md"], check=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto((out / "board" / "site" / "human.html").resolve().as_uri())
            page.screenshot(path=str(out / "board_human_page.png"), full_page=True)
            browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
