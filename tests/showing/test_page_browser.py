"""`maskref explain`'s page in a real browser: headless Chromium driven by selenium.

Opens a page (a JSON-ish Lark grammar on the gpt2 vocabulary, a prefix of five tokens)
from a file: URL and checks its script: the first step shown; Next, Previous, First and
Last, the arrow keys, Home and End switch the step shown, the counter, the Earley items
and the mask count to what Python computed for that step; the why-box answers for a
refused token; the console holds no error.

Skipped, with the reason printed, where selenium, Chromium or chromedriver is missing —
unless MASKREF_REQUIRE_BROWSER=1 (CI on CPython, .ci/run), where that is a failure.
Install them: `apt-get install chromium chromium-driver` and `pip install selenium`
(the `test` extra).

MASKREF_SCREENSHOT=PATH also saves a screenshot (1400×1000) of the page the README's
`maskref explain` example makes (the same command line, run here), at a step in the middle
with a refusal asked about — the README's picture:
MASKREF_SCREENSHOT=docs/explain-screenshot.png python -m pytest tests/showing/test_page_browser.py

Every check waits for the state it reads after a click, a key or a navigation
(tests/support/browser.py: wait_until, open_page).
"""
import os
import re
import shlex

import pytest

from refimpl import Grammar, Vocabulary
from refimpl.showing import explain, svg
from refimpl.showing import page as page_mod
from refimpl.showing.cli import main as maskref
from tests.support import browser
from tests.support.grammars import JSONISH
from tests.support.paths import ROOT

PREFIX = '{"a": [1'


browser.require()

from selenium.webdriver import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


@pytest.fixture(scope="module")
def explained():
    ex = explain(Grammar.from_lark(JSONISH), Vocabulary.load("gpt2"), text=PREFIX, why=["<"])
    assert not ex.stopped and len(ex.steps) >= 5
    return ex


@pytest.fixture(scope="module")
def driver(explained, tmp_path_factory):
    path = tmp_path_factory.mktemp("explain") / "page.html"
    path.write_text(page_mod.render(explained), encoding="utf-8")
    with browser.chromium() as d:
        browser.open_page(d, path.as_uri())
        yield d


@pytest.fixture(autouse=True)
def no_console_errors(driver):
    """After each test: no error in the browser's console (an uncaught exception is one)."""
    driver.get_log("browser")  # those of earlier tests were checked there
    yield
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []


STATE = """
var shown = Array.prototype.filter.call(document.querySelectorAll("section.step"), function (s) {
  return s.getClientRects().length > 0 && getComputedStyle(s).visibility !== "hidden";
});
var one = shown.length === 1 ? shown[0] : null;
function texts(sel) {
  return one === null ? [] : Array.prototype.map.call(one.querySelectorAll(sel), function (e) { return e.innerText; });
}
return {
  shown: shown.map(function (s) { return s.getAttribute("data-step"); }),
  counter: document.getElementById("step-counter").innerText,
  items: texts(".items > li"),
  count: texts(".mask-count"),
  prev: !document.getElementById("prev").disabled,
  next: !document.getElementById("next").disabled,
  current: Array.prototype.map.call(document.querySelectorAll("nav .jump.current"),
                                    function (b) { return b.getAttribute("data-step"); })
};
"""


def shown(d):
    """The section shown (exactly one is)."""
    visible = [s for s in d.find_elements(By.CSS_SELECTOR, "section.step") if s.is_displayed()]
    assert len(visible) == 1, [s.get_attribute("data-step") for s in visible]
    return visible[0]


def check_step(d, ex, i):
    """The page shows step i, and only it, as Python computed it: the counter, the Earley
    items, the mask count, which buttons are enabled, the token marked in the timeline
    (read in one script: the sections shown are those the browser lays out)."""
    step = ex.steps[i]
    counter = "step %d of %d" % (i, len(ex.steps) - 1)

    def showing(driver):
        state = driver.execute_script(STATE)
        return state if state["shown"] == [str(i)] and state["counter"] == counter else None

    state = browser.wait_until(d, showing, "step %d" % i)
    assert state["counter"] == counter
    assert state["items"] == [item for row in step.rows for item in row.items]
    assert state["count"] == [str(step.allowed)]
    assert (state["prev"], state["next"]) == (i > 0, i < len(ex.steps) - 1)
    assert state["current"] == [str(i)]
    # the page's one trie grid, in the section shown, painted for the step
    grid = shown(d).find_element(By.CSS_SELECTOR, ".trie-grid svg.trie")
    titles = d.execute_script(
        "return Array.prototype.map.call(arguments[0].querySelectorAll('g.first-byte title'), "
        "function (t) { return t.textContent; });", grid)
    trace = ex.traces[i]
    cells = svg.first_bytes(trace.tries, [(k.trie, k.node, k.why) for k in trace.skips],
                            [(k.trie, k.node) for k in trace.wholes])
    walked = bool(trace.tries) and not trace.cached
    for c in cells:
        assert titles[c.byte].split("): ", 1)[1].startswith(
            "%d of %d tokens allowed" % (c.tokens - c.refused, c.tokens) if walked else "not walked"), titles[c.byte]
    assert sum(1 for t in titles if t) == len(cells)


def press(d, key):
    ActionChains(d).send_keys(key).perform()


def answers(d, text):
    """The why-box's answer, once it says `text`."""
    result = d.find_element(By.ID, "why-result")
    browser.wait_until(d, lambda driver: text in result.text, "the answer %r" % text)
    return result


def ask(d, typed, text):
    """Type `typed` in the why-box (after clearing it); the answer, once it says `text`."""
    box = d.find_element(By.ID, "why-input")
    box.clear()
    box.send_keys(typed)
    return answers(d, text)


def test_buttons_step_forward_and_back(driver, explained):
    ex = explained
    # the steps differ where the test looks, so a step not switched cannot pass
    assert ex.steps[1].allowed != ex.steps[2].allowed
    assert [r.items for r in ex.steps[0].rows] != [r.items for r in ex.steps[2].rows]
    check_step(driver, ex, 0)
    driver.find_element(By.ID, "next").click()
    check_step(driver, ex, 1)
    driver.find_element(By.ID, "next").click()
    check_step(driver, ex, 2)
    driver.find_element(By.ID, "prev").click()
    check_step(driver, ex, 1)
    driver.find_element(By.ID, "last").click()
    check_step(driver, ex, len(ex.steps) - 1)
    driver.find_element(By.ID, "first").click()
    check_step(driver, ex, 0)
    driver.find_element(By.CSS_SELECTOR, 'nav .jump[data-step="3"]').click()
    check_step(driver, ex, 3)


def test_keyboard_steps_forward_and_back(driver, explained):
    ex = explained
    driver.find_element(By.ID, "first").click()
    check_step(driver, ex, 0)
    press(driver, Keys.ARROW_RIGHT)
    check_step(driver, ex, 1)
    press(driver, Keys.ARROW_RIGHT)
    check_step(driver, ex, 2)
    press(driver, Keys.ARROW_LEFT)
    check_step(driver, ex, 1)
    press(driver, Keys.END)
    check_step(driver, ex, len(ex.steps) - 1)
    press(driver, Keys.ARROW_RIGHT)  # no step after the last
    check_step(driver, ex, len(ex.steps) - 1)
    press(driver, Keys.HOME)
    check_step(driver, ex, 0)
    press(driver, Keys.ARROW_LEFT)  # nor before the first
    check_step(driver, ex, 0)


def test_why_box_explains_a_refused_token(driver, explained):
    ex = explained
    i, refusal = next((s.index, f) for s in ex.steps[1:] for f in s.refusals if f.byte)
    driver.find_element(By.CSS_SELECTOR, 'nav .jump[data-step="%d"]' % i).click()
    check_step(driver, ex, i)
    box = driver.find_element(By.ID, "why-input")
    result = ask(driver, str(refusal.token), refusal.why)
    assert result.find_element(By.CSS_SELECTOR, ".offset").text == str(refusal.offset)
    assert result.find_element(By.CSS_SELECTOR, ".death-byte").text == svg.glyphs(refusal.byte)
    # by its text, too (the "<" asked for with why= is refused at every step)
    lt = next(f for f in ex.steps[i].refusals if f.text == "<")
    ask(driver, "<", lt.why)
    assert result.find_element(By.CSS_SELECTOR, ".offset").text == str(lt.offset)
    # an allowed token is not among the refusals: the mask says it is allowed
    allowed_id, _ = ex.steps[i].sample[0]
    ask(driver, str(allowed_id), "is allowed at this step")
    # a refused token the page did not explain: the command that does, for this page
    vocab = ex.vocab
    unexplained = next(t for t in range(len(vocab)) if not ex.steps[i].flags[t] and vocab.is_grammar_token(t)
                       and t not in {f.token for f in ex.steps[i].refusals} and "'" in vocab.tokens[t].decode("utf-8", "replace")
                       and vocab.tokens[t].decode("utf-8", "replace").encode() == vocab.tokens[t])
    ask(driver, vocab.tokens[unexplained].decode(), "is refused at this step; this page did not compute where it dies")
    command = result.find_element(By.CSS_SELECTOR, ".why-command").text
    assert command.startswith("explain(grammar, vocab, ..., why=[%d])" % unexplained)  # made in Python: no command line
    ask(driver, "no such token \u2603", "is not a token of the vocabulary")
    ask(driver, str(len(vocab)), "No token has id %d" % len(vocab))
    # clicking a refusal asks for it; stepping on keeps the question, answered for the new step
    box.clear()
    items = shown(driver).find_elements(By.CSS_SELECTOR, ".refusals > li")
    items[-1].click()
    answers(driver, ex.steps[i].refusals[-1].why)
    assert box.get_attribute("value") == str(ex.steps[i].refusals[-1].token)
    ask(driver, "<", lt.why)
    driver.find_element(By.ID, "prev").click()
    check_step(driver, ex, i - 1)
    before = next(f for f in ex.steps[i - 1].refusals if f.text == "<")
    answers(driver, before.why)
    assert result.find_element(By.CSS_SELECTOR, ".offset").text == str(before.offset)


def test_the_address_names_the_step(driver, explained):
    """The step shown is in the address (#step-i), and a page opened there shows it."""
    driver.find_element(By.CSS_SELECTOR, 'nav .jump[data-step="2"]').click()
    browser.wait_until(driver, lambda d: d.current_url.endswith("#step-2"), "#step-2 in the address")
    url = driver.current_url.split("#")[0]
    # each a new document (browser.open_page): a refresh right after get(url) raced the page's
    # own rewriting of its address (#step-0) and was aborted by it, now and then
    browser.open_page(driver, url + "#step-3")
    check_step(driver, explained, 3)
    browser.open_page(driver, url)
    check_step(driver, explained, 0)  # no step named: the first


def readme_explain_command():
    """The README's `maskref explain` example that writes a page (--out), as arguments."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(m.group(1) for m in re.finditer(r"(?m)^maskref (explain .*--out .*)$", readme))
    return shlex.split(line)


def test_screenshot(driver, tmp_path, monkeypatch):
    """The page the README's explain example makes (its very command line, run here), at a
    step in the middle with a refusal asked about: the README's picture, saved where
    MASKREF_SCREENSHOT=PATH says, else only shown."""
    args = readme_explain_command()
    args[args.index("--out") + 1] = str(tmp_path / "page.html")
    monkeypatch.chdir(ROOT)  # the README's paths are from the root of the repository
    assert maskref(args) == 0
    back = driver.current_url
    browser.open_page(driver, (tmp_path / "page.html").as_uri())
    try:
        steps = len(driver.find_elements(By.CSS_SELECTOR, "section.step"))
        middle = steps // 2 + 1
        driver.find_element(By.CSS_SELECTOR, 'nav .jump[data-step="%d"]' % middle).click()
        counter = driver.find_element(By.ID, "step-counter")
        browser.wait_until(driver, lambda d: counter.text == "step %d of %d" % (middle, steps - 1), "step %d" % middle)
        # a refusal that dies after its first byte, asked about by clicking it
        refusals = shown(driver).find_elements(By.CSS_SELECTOR, ".refusals > li")
        assert refusals
        box, result = driver.find_element(By.ID, "why-input"), driver.find_element(By.ID, "why-result")
        for item in refusals:
            token = item.get_attribute("data-token")
            item.click()
            browser.wait_until(driver, lambda d, token=token: box.get_attribute("value") == token, "token %s asked" % token)
            if [o.text for o in result.find_elements(By.CSS_SELECTOR, ".offset")] not in ([], ["0"]):
                break
        driver.find_element(By.TAG_NAME, "h1").click()  # the focus out of the box
        driver.execute_script("window.scrollTo(0, 0)")
        assert counter.text == "step %d of %d" % (middle, steps - 1)
        target = os.environ.get("MASKREF_SCREENSHOT")
        if target:
            driver.set_window_size(1400, 1000)
            assert driver.save_screenshot(target)
            with open(target, "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    finally:
        browser.open_page(driver, back)


def test_console_errors_are_seen(driver):
    """The console check above works: an error logged by the page reaches it."""
    driver.execute_script("console.error('maskref probe')")
    logged = driver.get_log("browser")
    assert any("maskref probe" in e["message"] and e["level"] == "SEVERE" for e in logged), logged


def test_why_box_gives_the_command_line(driver, explained, tmp_path):
    """Rendered with its command line (as `maskref explain --out` does), the page answers a
    refused token it did not explain with that command and `--why '<token>'`, quoted for
    a POSIX shell (a token with a quote in it); a token whose text is digits or begins
    with "-" by its id (`--why 12` would mean id 12, `--why -x` an option); a refused EOS
    with its reason."""
    command = ["maskref", "explain", "--lark", "it's a grammar.lark", "--vocab", "gpt2", "--prefix", PREFIX]
    path = tmp_path / "with-command.html"
    path.write_text(page_mod.render(explained, command=command), encoding="utf-8")
    back = driver.current_url
    browser.open_page(driver, path.as_uri())
    try:
        ex, vocab, i = explained, explained.vocab, 2
        # by the step's button, not the address: a page opened at #step-2 under load was once
        # read before its script had shown the step (test_the_address_names_the_step tests that)
        driver.find_element(By.CSS_SELECTOR, 'nav .jump[data-step="2"]').click()
        check_step(driver, ex, i)
        explained_here = {f.token for f in ex.steps[i].refusals}

        def refused(test):
            return next(t for t in range(len(vocab)) if not ex.steps[i].flags[t] and vocab.is_grammar_token(t)
                        and t not in explained_here and vocab.tokens[t].decode("utf-8", "replace").encode() == vocab.tokens[t]
                        and test(vocab.tokens[t].decode()))

        box, result = driver.find_element(By.ID, "why-input"), driver.find_element(By.ID, "why-result")
        quoted = refused(lambda text: "'" in text and not text.isdigit())
        digits = refused(str.isdigit)
        dash = refused(lambda text: text.startswith("-"))  # `--why -x` would be an option
        # (digits typed in the box are an id, so the digits token is typed as its id)
        for typed, arg in ((vocab.tokens[quoted].decode(), vocab.tokens[quoted].decode()), (str(digits), str(digits)),
                           (vocab.tokens[dash].decode(), str(dash))):
            box.clear()
            box.send_keys(typed)
            want = command + ["--format", "text", "--why", arg]
            browser.wait_until(driver, lambda d, want=want: shlex.split(
                result.find_element(By.CSS_SELECTOR, ".why-command").text) == want, "the command %r" % want)
        if not ex.steps[i].eos:
            ask(driver, str(vocab.eos_token_id), "EOS, and the input may not end here")
    finally:
        browser.open_page(driver, back)
