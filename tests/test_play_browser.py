"""Browser play in a real browser: headless Chromium driven by Selenium against a live
server. Marked ``browser`` (run by ``make test-browser`` and in CI); skipped when Selenium,
Chromium or chromedriver is missing, unless ``SPLITPOKER_BROWSER_REQUIRED=1`` makes that a
failure. Screenshots go to ``$ARTIFACTS_DIR`` (default ``artifacts/``)."""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

REQUIRED = os.environ.get("SPLITPOKER_BROWSER_REQUIRED") == "1"
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", Path(__file__).resolve().parents[1] / "artifacts"))


def _need(module: str) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip(f"{module} is not installed")


def _chromium() -> tuple[str, str]:
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        if REQUIRED:
            pytest.fail("Chromium and chromedriver are needed (Debian: apt-get install chromium chromium-driver)")
        pytest.skip("Chromium or chromedriver is not installed")
    return browser, driver


class LiveServer:
    """``splitpoker play`` with ``settings`` served by uvicorn in a thread on a free local port."""

    def __init__(self, **settings: Any) -> None:
        uvicorn = _need("uvicorn")
        from splitpoker.play.commands import bind
        from splitpoker.play.server import create_app
        from splitpoker.play.session import PlaySettings

        self.socket = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/"
        self.app = create_app(PlaySettings(**settings))
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()

    def api(self, path: str, body: Any = None) -> Any:
        """A request to the match API as the page's own client: with the match's secret (read
        from the server in this process; the page holds it in a cookie of the match's path)."""
        from splitpoker.play.server import SECRET_HEADER

        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "matches"] and len(parts) > 2:
            headers[SECRET_HEADER] = self.app.state.matches._secrets[parts[2]]
        request = urllib.request.Request(self.url + path.lstrip("/"), data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    webdriver = _need("selenium.webdriver")
    binary, driver_path = _chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1100,1500", "--lang=en"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver_path), options=options)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver: Any, condition: Any, timeout: float = 30) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))


def screenshot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


def click_card(driver: Any, card: str) -> None:
    driver.find_element("css selector", f'.card[data-card="{card}"]').click()


def status(driver: Any) -> str:
    return str(driver.find_element("id", "status").text)


def test_arrange_by_clicks_submit_and_see_the_reveal(browser: Any) -> None:
    live = LiveServer(game="thirteen", players=3, hands=2, seed=4, against=("greedy",))
    try:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        match_id = browser.execute_script("return match.id")
        auto = live.api(f"api/matches/{match_id}/auto", {"hand": 0})["rows"]
        # sorting by suit groups the suits (spades, hearts, clubs, diamonds), by rank orders the ranks
        browser.find_element("id", "sort-suit").click()
        shown = [c.get_attribute("data-card") for c in browser.find_elements("css selector", "#hand .card")]
        suits = [card[1] for card in shown]
        assert suits == sorted(suits, key="shcd".index)
        browser.find_element("id", "sort-rank").click()
        shown = [c.get_attribute("data-card") for c in browser.find_elements("css selector", "#hand .card")]
        assert [card[0] for card in shown] == sorted((card[0] for card in shown), key="23456789TJQKA".index)
        # first a foul (the strongest row's cards in front): it is shown, and submit refused
        foul = [auto[2][:3], auto[1], auto[0] + auto[2][3:]]
        assert not live.api(f"api/matches/{match_id}/check", {"hand": 0, "rows": foul})["valid"]
        for k, row in enumerate(foul):
            browser.find_element("css selector", f"#rows .row:nth-child({k + 1}) .label").click()
            for card in row:
                click_card(browser, card)
        wait_for(browser, lambda d: "foul" in status(d))
        assert "倒水" in status(browser)
        assert browser.find_element("id", "submit").get_attribute("disabled") is not None
        screenshot(browser, "play-foul.png")
        browser.find_element("id", "clear").click()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        # the automatic arrangement, card by card, by clicks into the highlighted row; the
        # last card by drag and drop
        for k, row in enumerate(auto):
            browser.find_element("css selector", f"#rows .row:nth-child({k + 1}) .label").click()
            for card in row[:-1] if k == 2 else row:
                click_card(browser, card)
        browser.execute_script("""
            const card = document.querySelector(`#hand .card[data-card="${arguments[0]}"]`);
            const target = document.getElementById("row-2");
            const data = new DataTransfer();
            card.dispatchEvent(new DragEvent("dragstart", {dataTransfer: data, bubbles: true}));
            target.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
            target.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
        """, auto[2][-1])
        wait_for(browser, lambda d: status(d).startswith("valid"))
        assert [len(browser.find_elements("css selector", f"#row-{k} .card")) for k in range(3)] == [3, 5, 5]
        browser.find_element("id", "hint").click()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hints li")) == 5)
        screenshot(browser, "play-arranged.png")
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        reveal = browser.find_element("id", "reveal-body")
        assert len(reveal.find_elements("css selector", ".seat-box")) == 3  # one box a seat
        assert len(reveal.find_elements("css selector", ".seat-box .card")) == 3 * 13
        after = live.api(f"api/matches/{match_id}/record")
        totals = [cell.text for cell in browser.find_elements("css selector", "#totals-row td")]
        expected = [f"{'+' if t > 0 else ''}{t:g}" for t in after["totals"]]
        assert totals == expected
        assert after["played"][0]["seats"][0]["rows"] == [sorted_cards(r) for r in auto]
        screenshot(browser, "play-reveal.png")
        browser.find_element("id", "next").click()
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 13)
        browser.find_element("id", "auto").click()
        wait_for(browser, lambda d: status(d).startswith("valid"))
        browser.find_element("id", "submit").click()
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed())
        browser.find_element("id", "next").click()
        wait_for(browser, lambda d: d.find_element("id", "done").is_displayed())
        href = browser.find_element("id", "download").get_attribute("href")
        assert href.endswith(f"/api/matches/{match_id}/record")
        assert len(live.api(f"api/matches/{match_id}/record")["played"]) == 2
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        live.stop()


def sorted_cards(row: list[str]) -> list[str]:
    from splitpoker.envs.cards import format_card, parse_cards

    return [format_card(c) for c in sorted(parse_cards(" ".join(row)))]


def test_the_clock_runs_out_and_the_hand_is_played(browser: Any) -> None:
    live = LiveServer(game="biji", players=4, hands=3, seed=8, time_limit=3, against=("random",))
    try:
        browser.get(live.url)
        wait_for(browser, lambda d: len(d.find_elements("css selector", "#hand .card")) == 9)
        assert browser.find_element("id", "clock").is_displayed()
        click_card(browser, browser.find_element("css selector", "#hand .card").get_attribute("data-card"))
        wait_for(browser, lambda d: d.find_element("id", "reveal").is_displayed(), timeout=20)
        assert "time ran out" in browser.find_element("id", "reveal-title").text
        assert "timed out" in browser.find_element("css selector", "#totals tr:nth-child(2) td").text
        match_id = browser.execute_script("return match.id")
        record = live.api(f"api/matches/{match_id}/record")
        assert record["played"][0]["timed_out"] is True
        screenshot(browser, "play-timeout.png")
    finally:
        live.stop()
