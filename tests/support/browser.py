"""Headless Chromium for the pages' browser tests (the explain page, the scoreboard),
driven by selenium: skipped, with the reason printed, where selenium, Chromium or
chromedriver is missing — unless MASKREF_REQUIRE_BROWSER=1 (CI on CPython, .ci/run),
where that is a failure."""
import contextlib
import os
import shutil

import pytest


def _find(*names):
    for name in names:
        path = shutil.which(name)
        if path is not None:
            return path
    return None


def missing():
    """Why no browser test can run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium, or the test extra)"
    if _find("chromium", "chromium-browser", "google-chrome") is None:
        return "no Chromium (apt-get install chromium)"
    if _find("chromedriver") is None:
        return "no chromedriver (apt-get install chromium-driver)"
    return None


def unavailable(reason, module_level=False):
    """Skip, printing why — or fail where MASKREF_REQUIRE_BROWSER=1."""
    if os.environ.get("MASKREF_REQUIRE_BROWSER") == "1":
        pytest.fail("%s — and MASKREF_REQUIRE_BROWSER=1 requires it" % reason, pytrace=False)
    print("skipping the browser test: %s" % reason)
    pytest.skip(reason, allow_module_level=module_level)


def require():
    """At a browser test module's top: skip it (or fail, see above) where it cannot run."""
    if missing() is not None:
        unavailable(missing(), module_level=True)


@contextlib.contextmanager
def chromium(network_log=False):
    """A headless Chromium, 1400 x 1000, its console logged (and with network_log, every
    request it makes: `get_log("performance")`, Chrome's DevTools events); quit at the end."""
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = _find("chromium", "chromium-browser", "google-chrome")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", dict({"browser": "ALL"}, **({"performance": "ALL"} if network_log else {})))
    try:
        d = webdriver.Chrome(service=Service(_find("chromedriver")), options=options)
    except WebDriverException as e:
        unavailable("Chromium did not start: %s" % str(e).strip().splitlines()[0])
    d.set_page_load_timeout(30)
    try:
        yield d
    finally:
        d.quit()
