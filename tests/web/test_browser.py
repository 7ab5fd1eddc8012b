"""The arena in a real browser: Debian's chromium, headless, driven by Selenium (``make test-slow``).

Starts ``zanzibar serve`` on a free local port, plays a whole 2-player game by clicking with hints on,
checks every hint value shown against :func:`zanzibar_env.agents.exact.action_values` on the same state,
replays a saved game to its end, watches a small tournament finish and asks the solved policy. A
screenshot of the hint panel is written to a temporary folder whose path the test prints.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import zanzibar_env as zz
from tests.web.web_oracle import exact_values, seat_views

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]  # one browser, one worker

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
]


def _install_chromium() -> None:
    """Install Debian's chromium and chromium-driver with apt-get when missing (CI runs as root)."""
    if Path(CHROMIUM).exists() and Path(DRIVER).exists():
        return
    if shutil.which("apt-get") is None:
        pytest.skip("chromium is not installed and apt-get is not available to install it")
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium", "chromium-driver"]):
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            pytest.skip(f"could not install chromium with apt-get ({' '.join(cmd)}): {out.stderr[-300:]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("replays")
    zz.play_game("classic", zz.make_agent("greedy"), num_players=3, seed=7).save(folder / "saved.jsonl")
    cmd = [sys.executable, "-m", "zanzibar_env.web.cli", "--port", "0", "--replays", str(folder)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("Zanzibar arena on http://127.0.0.1:"), line
        yield line.split()[3]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    _install_chromium()
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={tempfile.mkdtemp(prefix='zanzibar-chromium-')}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    driver.get(server)
    _wait(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: Any, cond: Any, seconds: float = 60) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(cond)


def _by(driver: Any, css: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def _data(driver: Any, key: str) -> str:
    return str(driver.execute_script(f"return document.body.dataset.{key} || ''"))


def _hints(driver: Any) -> dict[int, float]:
    rows = _by(driver, "#hint-table tr[data-action]")
    return {int(r.get_attribute("data-action")): float(r.get_attribute("data-value")) for r in rows}


def test_play_a_whole_game_with_hints_checked_exactly(browser: Any, server: str) -> None:
    _by(browser, "#hints-toggle")[0].click()
    _by(browser, "#new-game")[0].click()
    _wait(browser, lambda d: _data(d, "decisions") == "0")
    shown: list[dict[int, float]] = []
    shot = Path(tempfile.mkdtemp(prefix="zanzibar-arena-")) / "hint_panel.png"
    while _data(browser, "gameOver") != "1":
        _wait(browser, lambda d: _by(d, "#holds button.hold") and _by(d, "#hint-table tr[data-action]"))
        shown.append(_hints(browser))
        if len(shown) == 1:
            _by(browser, "#hint-panel")[0].screenshot(str(shot))
            browser.save_screenshot(str(shot.with_name("page.png")))
        buttons = _by(browser, "#holds button.hold")
        buttons[len(shown) % len(buttons)].click()  # a spread of holds, best ones and worse ones
        done = str(len(shown))
        _wait(browser, lambda d, done=done: _data(d, "decisions") == done)
        assert len(shown) < 2000
    print(f"\nscreenshot of the hint panel: {shot}")
    assert shot.stat().st_size > 1000
    href = _by(browser, "#download")[0].get_attribute("href")
    with urllib.request.urlopen(href, timeout=30) as resp:
        record = zz.GameRecord.from_json(resp.read().decode())
    decisions = list(seat_views(record, seat=0))
    assert len(decisions) == len(shown)
    for (view, _action), values in zip(decisions, shown, strict=True):
        exact = exact_values(view)
        assert values.keys() == exact.keys()
        assert all(abs(values[a] - exact[a]) < 1e-5 for a in exact), (view, values, exact)
    assert "cost" in _by(browser, "#feedback-text")[0].text


def test_replay_a_saved_game_to_its_end(browser: Any) -> None:
    _by(browser, "nav button[data-tab=replay]")[0].click()
    _wait(browser, lambda d: _by(d, "#replay-file option"))
    _by(browser, "#replay-load")[0].click()
    _wait(browser, lambda d: "1 / " in _by(d, "#replay-step")[0].text)
    steps = int(_by(browser, "#replay-step")[0].text.split("/")[1])
    for k in range(2, steps + 1):
        _by(browser, "#replay-next")[0].click()
        _wait(browser, lambda d, k=k: _by(d, "#replay-step")[0].text.startswith(f"{k} /"))
    assert _data(browser, "replayAtEnd") == "1"
    assert "wins" in _by(browser, "#replay-status")[0].text
    assert _by(browser, "#replay-svg svg")


def test_watch_a_tournament_finish(browser: Any) -> None:
    _by(browser, "nav button[data-tab=tournament]")[0].click()
    for css, value in (("#t-bots", "random,greedy"), ("#t-games", "8")):
        box = _by(browser, css)[0]
        box.clear()
        box.send_keys(value)
    _by(browser, "#t-start")[0].click()
    _wait(browser, lambda d: _data(d, "tournamentDone") == "1", 120)
    assert "8 of 8 games played" in _by(browser, "#t-progress")[0].text
    assert len(_by(browser, "#t-table tbody tr")) == 2


def test_ask_the_solved_policy(browser: Any) -> None:
    _by(browser, "nav button[data-tab=ask]")[0].click()
    for css, value in (("#ask-hands", "1 1 1"), ("#ask-first", "2"), ("#ask-dice", "2 5 6")):
        box = _by(browser, css)[0]
        box.clear()
        box.send_keys(value)
    _by(browser, "#ask-go")[0].click()
    _wait(browser, lambda d: _by(d, "#ask-best"))
    assert "Best: keep 5 6, reroll 1 die" in _by(browser, "#ask-best")[0].text
