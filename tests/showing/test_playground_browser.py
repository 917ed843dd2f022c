"""The playground page of the built documentation site in a real browser: headless
Chromium driven by selenium, the site served from a local folder over HTTP
(tests/support/site.py: MASKREF_SITE as CI builds it, else built here once).

The learner's path: the page starts (Pyodide and refimpl, both from the site), a grammar
is typed, a vocabulary picked, a prefix typed; the mask count the page shows is the one
refimpl computes in Python for the same input, in the summary and in the explanation's
frame; "why" for a refused token the page did not explain beforehand answers where and
why it dies, as Python's explain(..., why=[token]) does; a clicked allowed token is
consumed; a grammar error shows its line, column and caret. Python runs in a Web Worker:
while it computes a slow explanation the page's own scripts run, Stop (or the time limit)
ends it with a message and a fresh worker, whose next explanation is refimpl's again.
Throughout: no error in the console, and no request leaves the site (Chrome's network
events for the page, the worker's own Resource Timing entries, and the local server's log:
nothing missing).

Skipped, with the reason printed, where selenium, Chromium or chromedriver is missing, or
the site cannot be built (the docs extra) — unless MASKREF_REQUIRE_BROWSER=1 (CI), where
that is a failure. The site's build needs npm (or MASKREF_PYODIDE): tools/playground_hook.py.
"""
import json
import os
import re
import shutil

import pytest

from refimpl import Grammar, Matcher
from refimpl.showing import explain, svg
from refimpl.showing import playground as pg
from refimpl.showing.steps import token_id
from tests.support import browser, site
from tests.support.grammars import JSONISH
from tests.support.paths import ROOT

PREFIX = '{"a": [1'

browser.require()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if not os.environ.get("MASKREF_SITE") and not (os.environ.get("MASKREF_PYODIDE") or shutil.which("npm")
                                                   or (ROOT / "tools/playground/node_modules/pyodide").is_dir()):
        browser.unavailable("no npm to install Pyodide for the site's playground (tools/playground_hook.py)")
    if site.missing() is not None and not os.environ.get("MASKREF_SITE"):
        browser.unavailable("the documentation site cannot be built: %s" % site.missing())
    folder = site.built_site(tmp_path_factory)
    with site.serve(folder) as (url, requests):
        yield url, url + site.playground_page(folder), requests


@pytest.fixture(scope="module")
def driver(served):
    _, page, _ = served
    with browser.chromium(network_log=True) as d:
        browser.open_page(d, page)
        site.wait_shown(d, 1)  # Pyodide started, refimpl imported, the first example explained
        yield d


@pytest.fixture(autouse=True)
def no_console_errors(driver):
    """After each test: no error in the browser's console (the frame's included)."""
    driver.switch_to.default_content()
    yield
    driver.switch_to.default_content()
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []


def runs(d):
    return d.execute_script("return window.maskrefPlayground.timings.runs.length")


def settle(d, before):
    """Until the page has shown the explanation after `before` runs; the page is ready."""
    site.wait_shown(d, before + 1)
    assert d.find_element(By.ID, "maskref-playground").get_attribute("data-state") == "ready", \
        d.find_element(By.ID, "pg-status").text


def explain_in_page(d, kind, grammar, vocab, text):
    """Types the grammar and the text, as a learner would, and shows their explanation."""
    if Select(d.find_element(By.ID, "pg-kind")).first_selected_option.get_attribute("value") != kind:
        n = runs(d)
        Select(d.find_element(By.ID, "pg-kind")).select_by_value(kind)  # explains the kind's example
        settle(d, n)
    if Select(d.find_element(By.ID, "pg-vocab")).first_selected_option.get_attribute("value") != vocab:
        n = runs(d)
        Select(d.find_element(By.ID, "pg-vocab")).select_by_value(vocab)
        settle(d, n)
    box = d.find_element(By.ID, "pg-grammar")
    box.clear()
    box.send_keys(grammar)
    box = d.find_element(By.ID, "pg-text")
    box.clear()
    box.send_keys(text)
    n = runs(d)
    click(d, d.find_element(By.ID, "pg-run"))
    settle(d, n)


def click(d, element):
    """A click on `element`, scrolled to the middle first (the site's top bar is fixed; its
    theme scrolls smoothly: here at once)."""
    d.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", element)
    element.click()


def python_mask(grammar, text=b"", tokens=()):
    m = Matcher(grammar, pg.vocabulary("gpt2"))
    assert m.consume_bytes(text)
    for t in tokens:
        m.consume(t)
    return m.mask().allowed()


def in_frame(d):
    """The driver, switched to the explanation's frame once its page is there, scrolled so
    that the frame's top is below the site's fixed bar (which would take clicks meant for
    the frame's own top bar)."""
    frame = d.find_element(By.ID, "pg-view")
    d.execute_script("window.scrollTo({top: arguments[0].getBoundingClientRect().top + window.scrollY - 120, "
                     "behavior: 'instant'})", frame)
    d.switch_to.frame(frame)
    browser.wait_until(d, lambda d: d.execute_script("return document.querySelector('section.step') !== null"),
                       "the explanation in the frame")
    return d


def last_step(d):
    """In the frame: the explanation's last step shown (its Last button)."""
    d.find_element(By.ID, "last").click()
    steps = len(d.find_elements(By.CSS_SELECTOR, "section.step"))
    browser.wait_until(d, lambda d: d.find_element(By.ID, "step-counter").text == "step %d of %d"
                       % (steps - 1, steps - 1), "the last step")


def test_the_page_started_from_the_site(driver):
    assert driver.find_element(By.ID, "maskref-playground").get_attribute("data-state") == "ready"
    kinds = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "pg-kind")).options]
    assert kinds == list(pg.KINDS)
    # the first example, explained at once on the bytes vocabulary
    _, grammar, text = pg.KINDS[kinds[0]]
    assert driver.find_element(By.ID, "pg-grammar").get_attribute("value") == grammar
    ex, out = pg.run(kinds[0], grammar, "bytes", text=text)
    assert driver.find_element(By.ID, "pg-allowed").text == str(out["allowed"])


def test_a_typed_grammar_and_prefix_give_refimpls_mask(driver):
    explain_in_page(driver, "lark", JSONISH, "gpt2", PREFIX)
    allowed = python_mask(Grammar.from_lark(JSONISH), PREFIX.encode())
    assert 0 < len(allowed) < 50257
    assert driver.find_element(By.ID, "pg-allowed").text == str(len(allowed))
    assert driver.find_element(By.CSS_SELECTOR, "#pg-summary .pg-text").text == PREFIX
    # the explanation in the frame, at its last step, says the same
    d = in_frame(driver)
    last_step(d)
    browser.wait_until(d, lambda d: d.execute_script(
        "var s = document.querySelector('section.step:not([hidden])'); return s && s.querySelector('.mask-count')"
        " && s.querySelector('.mask-count').textContent") == str(len(allowed)), "the last step's mask count")


def test_why_answers_for_a_token_the_page_did_not_explain(driver):
    explain_in_page(driver, "lark", JSONISH, "gpt2", PREFIX)
    g, v = Grammar.from_lark(JSONISH), pg.vocabulary("gpt2")
    plain = explain(g, v, text=PREFIX).steps[-1]
    explained = {f.token for f in plain.refusals}
    token = next(t for t in ("}", "abc", "true", ":") if token_id(v, t) not in explained
                 and not plain.flags[token_id(v, t)])
    asked = explain(g, v, text=PREFIX, why=[token]).steps[-1].refusals[0]
    assert asked.text == token and asked.byte
    d = in_frame(driver)
    last_step(d)
    box = d.find_element(By.ID, "why-input")
    box.clear()
    box.send_keys(token)
    result = d.find_element(By.ID, "why-result")
    browser.wait_until(d, lambda d: asked.why in result.text, "the refusal of %r" % token)
    assert result.find_element(By.CSS_SELECTOR, ".offset").text == str(asked.offset)
    assert result.find_element(By.CSS_SELECTOR, ".death-byte").text == svg.glyphs(asked.byte)
    assert "did not compute" not in result.text


def test_clicking_an_allowed_token_consumes_it(driver):
    explain_in_page(driver, "lark", JSONISH, "gpt2", PREFIX)
    chip = driver.find_elements(By.CSS_SELECTOR, "#pg-next button.pg-tok")[1]
    clicked = int(chip.get_attribute("data-token"))
    path = [int(t) for t in json.loads(driver.execute_script(
        "return JSON.stringify(window.maskrefPlayground.last.tokens)"))]
    n = runs(driver)
    click(driver, chip)
    settle(driver, n)
    assert driver.find_element(By.ID, "pg-tokens").get_attribute("value") == " ".join(map(str, path + [clicked]))
    allowed = python_mask(Grammar.from_lark(JSONISH), tokens=path + [clicked])
    assert driver.find_element(By.ID, "pg-allowed").text == str(len(allowed))


def test_a_grammar_error_shows_line_column_and_caret(driver):
    explain_in_page(driver, "lark", "start: A\nA: /[0-9/", "bytes", "1")
    error = driver.find_element(By.ID, "pg-error")
    assert error.is_displayed()
    assert "unclosed character class" in error.text and "at line 2, column 5" in error.text
    assert error.find_element(By.CSS_SELECTOR, "pre.pg-caret").text == "A: /[0-9/\n    ^"
    assert driver.find_elements(By.ID, "pg-allowed") == []
    # and gone once the grammar is right again
    explain_in_page(driver, "lark", JSONISH, "bytes", "[1")
    assert not driver.find_element(By.ID, "pg-error").is_displayed()


# a computation that takes minutes (about 1,500 GPT-2 steps, each a new mask: nested arrays
# deeper and deeper), stopped long before it ends
SLOW_TEXT = "[" * 3000

# counts, every 50 ms, the ticks of a timer on the page while the page is busy explaining
TICKS = """if (window.pgTicks === undefined) {
  window.pgTicks = 0;
  setInterval(function () {
    if (document.getElementById("maskref-playground").dataset.state === "busy") { window.pgTicks += 1; }
  }, 50);
}
return window.pgTicks;"""


def state_of(d):
    return d.find_element(By.ID, "maskref-playground").get_attribute("data-state")


def start_slow(d):
    """Starts the slow explanation; once the worker computes it, the ticks counted so far."""
    explain_in_page(d, "lark", pg.KINDS["lark"][1], "gpt2", "")  # the vocabulary loaded beforehand
    ticks = d.execute_script(TICKS)
    d.execute_script("document.getElementById('pg-text').value = arguments[0]", SLOW_TEXT)
    click(d, d.find_element(By.ID, "pg-run"))
    browser.wait_until(d, lambda d: state_of(d) == "busy", "the page busy")
    return ticks


def restarted(d, stops, reason):
    """Until the page says the worker was stopped (the `stops`-th time) and restarted; its status."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.wait_until(d, lambda d: d.execute_script("return window.maskrefPlayground.stops") == stops,
                       "the worker stopped")
    status = d.find_element(By.ID, "pg-status")
    assert status.get_attribute("aria-live") == "polite"
    assert "Stopped after" in status.text and reason in status.text, status.text
    WebDriverWait(d, 300, poll_frequency=0.1).until(lambda d: state_of(d) == "ready")  # Pyodide loaded again
    assert "the worker restarted" in status.text and reason in status.text, status.text
    assert not d.find_element(By.ID, "pg-stop").is_enabled()
    return status.text


def test_the_page_answers_while_the_worker_computes_and_stop_ends_it(driver):
    stops = driver.execute_script("return window.maskrefPlayground.stops")
    ticks = start_slow(driver)
    # the page's own timer runs while Python computes (on the page's thread, it could not)
    browser.wait_until(driver, lambda d: d.execute_script(TICKS) >= ticks + 20, "timer ticks while busy")
    assert state_of(driver) == "busy"
    stop = driver.find_element(By.ID, "pg-stop")
    assert stop.is_enabled()
    click(driver, stop)
    status = restarted(driver, stops + 1, "(Stop pressed)")
    assert re.search(r"Stopped after \d+ s \(Stop pressed\); the worker restarted in [0-9.]+ s", status), status
    # the fresh worker (the vocabulary loaded again) gives refimpl's mask
    explain_in_page(driver, "lark", JSONISH, "gpt2", PREFIX)
    assert driver.find_element(By.ID, "pg-allowed").text == str(len(python_mask(Grammar.from_lark(JSONISH),
                                                                                  PREFIX.encode())))


def test_the_time_limit_stops_a_computation(driver):
    stops = driver.execute_script("return window.maskrefPlayground.stops")
    driver.execute_script("window.maskrefPlayground.limit = 2")
    try:
        start_slow(driver)
        restarted(driver, stops + 1, "(the time limit, 2 s)")
    finally:
        driver.execute_script("window.maskrefPlayground.limit = 30")
    n = runs(driver)
    explain_in_page(driver, "lark", JSONISH, "gpt2", '{"b": [2')
    assert runs(driver) > n
    assert driver.find_element(By.ID, "pg-allowed").text == str(len(python_mask(Grammar.from_lark(JSONISH),
                                                                                  b'{"b": [2')))


def test_no_request_leaves_the_site(driver, served):
    base, _, requests = served
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert any(u.endswith("/playground/worker.js") for u in urls)
    # the worker's own requests (Chrome's log of the page does not hold them)
    driver.set_script_timeout(60)
    worker = driver.execute_async_script("window.maskrefPlayground.requests(arguments[arguments.length - 1])")
    assert any(u.endswith("/pyodide/pyodide.asm.wasm") for u in worker)
    assert any(u.endswith("/maskref.zip") for u in worker)
    urls += worker
    outside = [u for u in urls if not u.startswith(base) and not u.startswith(("data:", "blob:", "about:"))]
    assert outside == []
    assert [r for r in requests if r[2] not in ("200", "304")] == []  # nothing the site lacks
