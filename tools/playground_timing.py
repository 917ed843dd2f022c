"""How long the playground page (docs/playground.md) takes in headless Chromium: until it
is interactive (Pyodide loaded and refimpl imported, in the page's Web Worker), and the
first GPT-2 mask (the vocabulary loaded; then its trie built, the mask and the page
rendered) — the figures docs/playground.md quotes.

    python tools/playground_timing.py [--site DIR] [--runs N]

--site: a built site (default: MASKREF_SITE, else one built now into a temporary folder
with the docs extra's generator: tests/support/site.py). Each run opens the page afresh in a new browser (nothing cached),
served from 127.0.0.1. Prints one line per run and the medians. Needs selenium,
Chromium and chromedriver (the browser tests' requirements: tests/support/browser.py).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.support import browser, site  # noqa: E402

READY = 'return document.getElementById("maskref-playground").getAttribute("data-state")'


def measure(url, page):
    """One run, in ms: until interactive (of which loading Pyodide, importing refimpl); then
    the GPT-2 vocabulary loaded, and the first GPT-2 mask (the explanation of the empty
    text: the token trie built, one mask, the page rendered)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with browser.chromium() as d:
        d.get(url + page)
        site.wait_shown(d, 1)  # ready, and the first example explained on bytes
        assert d.execute_script(READY) == "ready", d.find_element(By.ID, "pg-status").text
        t = d.execute_script("return window.maskrefPlayground.timings")
        d.execute_script('document.getElementById("pg-text").value = ""')
        Select(d.find_element(By.ID, "pg-vocab")).select_by_value("gpt2")  # the example grammar, on GPT-2
        site.wait_shown(d, 2)
        run = d.execute_script("var r = window.maskrefPlayground.timings.runs; return r[r.length - 1]")
        assert run["vocab"] == "gpt2" and run["steps"] == 1, run
        return t["ready"], t["pyodide"], t["refimpl"], run["load"], run["run"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--site", help="a built site (default: MASKREF_SITE, else built now)")
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.site or os.environ.get("MASKREF_SITE")
        if not folder:
            folder = os.path.join(tmp, "site")
            subprocess.run(site.build_command(folder), cwd=str(site.ROOT), check=True)
        with site.serve(folder) as (url, _):
            rows = []
            for i in range(args.runs):
                rows.append(measure(url, site.playground_page(folder)))
                print("run %d: interactive after %.0f ms (Pyodide %.0f ms, refimpl %.0f ms); GPT-2: vocabulary "
                      "%.0f ms, first mask %.0f ms" % ((i + 1,) + rows[-1]), flush=True)
    medians = tuple(statistics.median(c) / 1e3 for c in zip(*rows))
    print("median of %d: interactive after %.1f s (loading Pyodide %.1f s, importing refimpl %.1f s); "
          "GPT-2 vocabulary loaded in %.1f s, first GPT-2 mask %.1f s" % ((len(rows),) + medians))
    return 0


if __name__ == "__main__":
    sys.exit(main())
