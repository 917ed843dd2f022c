"""The scoreboard page (`python -m conformance report`) in a real browser: headless
Chromium driven by selenium, as tests/showing/test_page_browser.py drives the explain page.

The page is built from the committed results (results/: the default suite, MaskBench,
SchemaStore) and from made-up records (tests/support/scoreboard.py: every outcome), then
opened from a file: URL. Checked: the tables hold a row per engine, every SVG plot
lays out with a non-empty box (and its bars too), the console holds no error, and the
page loads nothing but itself.

Skipped, with the reason printed, where selenium, Chromium or chromedriver is missing —
unless MASKREF_REQUIRE_BROWSER=1 (CI on CPython, .ci/run), where that is a failure.

MASKREF_SCREENSHOT_SCOREBOARD=PATH also saves a screenshot of the page from the
committed results (1400 wide, its whole height).
"""
import os

import pytest

from conformance import report
from tests.conformance.test_report import ENGINES, RESULTS
from tests.support import browser, scoreboard

browser.require()

from selenium.webdriver.common.by import By  # noqa: E402

#: every element's laid-out box, by plot: the plot's own and its drawn shapes'
BOXES = """
return Array.prototype.map.call(document.querySelectorAll("svg.plot"), function (svg) {
  var r = svg.getBoundingClientRect();
  var shapes = Array.prototype.map.call(svg.querySelectorAll("rect.seg, rect.box"), function (s) {
    var b = s.getBBox(); return [b.width, b.height];
  });
  return {plot: svg.getAttribute("data-plot"), width: r.width, height: r.height, shapes: shapes};
});
"""
#: what the page loaded besides itself (resource timing entries)
LOADED = """return performance.getEntriesByType("resource").map(function (e) { return e.name; });"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """(committed-results page, made-up-records page), as file paths."""
    folder = tmp_path_factory.mktemp("scoreboard")
    committed = report.write([str(RESULTS)], str(folder / "committed"))[0]
    made_up = report.write([str(scoreboard.write(folder))], str(folder / "made-up"))[0]
    return committed, made_up


@pytest.fixture(scope="module")
def driver():
    with browser.chromium() as d:
        yield d


def opened(d, path):
    """Open the page; its console must hold no error, and it must have loaded nothing."""
    d.get_log("browser")
    browser.open_page(d, "file://" + path)
    errors = [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    assert d.execute_script(LOADED) == []
    return d


def rows(d, table):
    return [r.get_attribute("data-engine") for r in d.find_elements(By.CSS_SELECTOR, "table.%s tbody tr" % table)]


def check_plots(d, names):
    plots = d.execute_script(BOXES)
    assert [p["plot"] for p in plots] == names
    for p in plots:
        assert p["width"] > 100 and p["height"] > 40, p
        assert p["shapes"] and all(w > 0 and h > 0 for w, h in p["shapes"]), p


def test_the_page_of_the_committed_results(driver, pages):
    d = opened(driver, pages[0])
    assert rows(d, "matrix") == sorted(ENGINES, key=report._order)
    assert rows(d, "totals") == rows(d, "matrix")
    check_plots(d, ["default-outcomes", "default-kinds", "default-seconds", "maskbench-outcomes", "maskbench-ttfm",
                    "maskbench-tbm", "schemastore-outcomes", "json-schema-test-suite-outcomes"])
    bars = d.find_elements(By.CSS_SELECTOR, 'svg[data-plot="default-outcomes"] text.label')
    assert [b.text for b in bars] == rows(d, "matrix")
    target = os.environ.get("MASKREF_SCREENSHOT_SCOREBOARD")
    if target:
        d.set_window_size(1400, d.execute_script("return document.body.scrollHeight") + 40)
        assert d.save_screenshot(target)
        d.set_window_size(1400, 1000)


def test_the_page_of_every_section(driver, pages):
    d = opened(driver, pages[1])
    assert rows(d, "matrix") == ["refimpl", "peer", "peer-default"]
    assert rows(d, "maskbench")[-1] == "peer-default"
    assert rows(d, "disagreements") == ["peer"]
    check_plots(d, ["default-outcomes", "default-kinds", "default-seconds", "maskbench-outcomes", "maskbench-ttfm",
                    "maskbench-tbm", "schemastore-outcomes"])


def test_console_errors_are_seen(driver, pages):
    """The console check works: an error logged by the page reaches it."""
    opened(driver, pages[0])
    driver.execute_script("console.error('maskref probe')")
    logged = driver.get_log("browser")
    assert any("maskref probe" in e["message"] and e["level"] == "SEVERE" for e in logged), logged
