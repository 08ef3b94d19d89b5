"""What the browser tests share: headless Chromium (:func:`chromium_driver`, the ``browser``
fixture of ``tests/conftest.py``), ``splitpoker play`` served in a thread
(:class:`LiveServer`), and the page read and driven as a player would
(:func:`wait_for`, :func:`click_card`, :func:`cards_in`, :func:`wait_valid`, :func:`viewport`,
:func:`severe`, :func:`screenshot`).

Selenium, Chromium or chromedriver missing skips a test, unless
``SPLITPOKER_BROWSER_REQUIRED=1`` makes that a failure. Screenshots go to
``$ARTIFACTS_DIR`` (default ``artifacts/``)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REQUIRED = os.environ.get("SPLITPOKER_BROWSER_REQUIRED") == "1"
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", Path(__file__).resolve().parents[1] / "artifacts"))

#: the page's viewport on a phone and on a desktop (:func:`viewport`)
PHONE = (390, 844)
DESKTOP = (1280, 800)


def need(module: str) -> Any:
    """``module`` imported; the test skipped where it is not installed (failed where required)."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip(f"{module} is not installed")


def chromium() -> tuple[str, str]:
    """The paths of Chromium and chromedriver; the test skipped where either is missing."""
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        if REQUIRED:
            pytest.fail("Chromium and chromedriver are needed (Debian: apt-get install chromium chromium-driver)")
        pytest.skip("Chromium or chromedriver is not installed")
    return browser, driver


@contextlib.contextmanager
def chromium_driver() -> Iterator[Any]:
    """Headless Chromium in English, its console kept, quit at the end."""
    webdriver = need("selenium.webdriver")
    binary, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1100,1500", "--lang=en"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.unhandled_prompt_behavior = "accept"  # the warning before leaving a hand being arranged
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=driver_path), options=options)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


class LiveServer:
    """``splitpoker play`` with ``settings`` served by uvicorn in a thread on a free local port;
    as a context manager, stopped at the end of the block."""

    def __init__(self, **settings: Any) -> None:
        uvicorn = need("uvicorn")
        from splitpoker.play.commands import bind
        from splitpoker.play.server import create_app
        from splitpoker.play.session import PlaySettings

        self.socket = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/"
        self.app = create_app(PlaySettings(**settings))
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

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


def wait_for(driver: Any, condition: Any, timeout: float = 30) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))


def screenshot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


def click_card(driver: Any, card: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException

    for attempt in range(5):  # the page may redraw the card between finding and clicking it
        try:
            driver.find_element("css selector", f'.card[data-card="{card}"]').click()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise


def status(driver: Any) -> str:
    return str(driver.find_element("id", "status").text)


def viewport(driver: Any, width: int, height: int) -> None:
    """The page's viewport: a phone's (touch, narrow) or a desktop's."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def no_horizontal_scroll(driver: Any) -> bool:
    return bool(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"))


def severe(driver: Any, allowed: tuple[str, ...] = ()) -> list[Any]:
    """The browser's console errors, but those naming one of ``allowed``."""
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
            and not any(text in e["message"] for text in allowed)]


def cards_in(driver: Any, selector: str) -> list[str]:
    """The cards shown in a zone, in order (read in one script: the page redraws zones)."""
    return list(driver.execute_script("return [...document.querySelectorAll(arguments[0])].map((c) => c.dataset.card)",
                                      f"{selector} .card"))


def wait_valid(driver: Any) -> None:
    """The rows are checked valid (in either language) and Submit is on, with no request under
    way that could change them."""
    wait_for(driver, lambda d: d.execute_script("return inflight.size === 0 && !!lastCheck && lastCheck.valid")
             and d.find_element("id", "submit").is_enabled())
