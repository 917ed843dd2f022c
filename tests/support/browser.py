"""Headless Chromium for the pages' browser tests (the explain page, the scoreboard),
driven by selenium: skipped, with the reason printed, where selenium, Chromium or
chromedriver is missing — unless MASKREF_REQUIRE_BROWSER=1 (CI on CPython, .ci/run),
where that is a failure.

A test never reads a page right after a navigation or a click: it waits for the state it
reads (`wait_until`), and opens a page by `open_page`, a load from a blank page that ends
when the document is complete — never a `get` of the page already shown nor a `refresh`.
The explain page rewrites its address as it loads (history.replaceState to #step-i, a
same-document navigation); a `refresh` sent right after `get(url)` was aborted by it about
3 times in 150 on PyPy ("TimeoutException: timeout from aborted by navigation: Not attached
to an active page", the flake of CI), and `open_page` none in 150."""
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


#: the bound on a wait for a page's state (not a measure: a state that never comes fails)
WAIT_SECONDS = 30


def wait_until(d, condition, what):
    """condition(d)'s first true value, asked until it comes; a failure naming `what`
    (and the last value seen) if it does not within WAIT_SECONDS."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    seen = []

    def asked(driver):
        seen[:] = [condition(driver)]
        return seen[0]

    try:
        return WebDriverWait(d, WAIT_SECONDS, poll_frequency=0.05).until(asked)
    except TimeoutException:
        pytest.fail("the page never showed %s (last seen: %r)" % (what, seen[0] if seen else None), pytrace=False)


def open_page(d, url):
    """Open url as a new document (from about:blank, so that no same-document navigation is
    in flight) and wait until it is complete and its scripts have run."""
    d.get("about:blank")
    d.get(url)
    wait_until(d, lambda driver: driver.execute_script(
        "return document.readyState === 'complete' && location.href.indexOf('about:') !== 0"), "%s loaded" % url)
    return d
