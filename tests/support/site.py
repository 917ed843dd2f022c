"""The documentation site, built: for the tests that read it (tests/test_site.py, the
playground's browser test).

CI builds it once, strictly, into `site/` before the tests and names it in MASKREF_SITE
(.ci/run); elsewhere the first test that asks builds it into a temporary folder (once per
test session), with the generator of the `docs` extra — ProperDocs, the maintained
continuation of MkDocs, reading mkdocs.yml — and skips where that is not installed
(unless MASKREF_REQUIRE_MODULES names it: tests/conftest.py).

For the playground's browser test and its timing tool (tools/playground_timing.py): a
local HTTP server over the site that logs every request (`serve`), and the wait for the
page's state (`wait_shown`)."""
import contextlib
import functools
import http.server
import importlib.util
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.paths import ROOT

CONFIG = ROOT / "mkdocs.yml"


def build_command(site_dir):
    """The strict, offline build of the site into site_dir (the README's command)."""
    return [sys.executable, "-m", "properdocs", "build", "--strict", "--clean", "-f", str(CONFIG), "-d", str(site_dir)]


def missing():
    """Why the site cannot be built here, or None."""
    for module in ("properdocs", "mkdocstrings_handlers.python"):
        try:
            if importlib.util.find_spec(module) is None:
                raise ImportError(module)
        except ImportError:
            return "%s is not installed (pip install -e \".[docs]\")" % module.split(".")[0]
    return None


def built_site(tmp_path_factory):
    """The built site's folder: MASKREF_SITE's, or one built now (skips where it cannot be)."""
    given = os.environ.get("MASKREF_SITE")
    if given:
        site = Path(given)
        assert (site / "index.html").is_file(), "MASKREF_SITE=%s holds no built site (index.html)" % given
        return site
    reason = missing()
    if reason is not None:
        pytest.skip("the documentation site cannot be built: %s" % reason)
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run(build_command(site), cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    assert done.returncode == 0, "the strict site build failed:\n" + done.stdout
    return site


def playground_page(site):
    """The playground page of a built site (playground.html, or playground/index.html
    where the site uses directory URLs), relative to the site."""
    return "playground.html" if (Path(site) / "playground.html").is_file() else "playground/index.html"


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript"})

    def log_message(self, format, *args):  # noqa: A002 -- the base class's name
        self.server.requests.append((self.command, self.path, args[1] if len(args) > 1 else ""))


@contextlib.contextmanager
def serve(folder):
    """An HTTP server on 127.0.0.1 over `folder`, in a thread (a page with WebAssembly does
    not load from a file: URL): yields (its base URL, the requests served so far as
    (method, path, status))."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(folder)))
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d/" % server.server_address[1], server.requests
    finally:
        server.shutdown()
        server.server_close()


# the playground has shown its n-th explanation (arguments[0]), its frame loaded (or hidden:
# a grammar's error), or it failed to start
SHOWN = """var p = window.maskrefPlayground, s = document.getElementById("maskref-playground").dataset.state;
var f = document.getElementById("pg-view"), n = p === undefined ? 0 : p.timings.runs.length;
return s === "failed" || (s === "ready" && n >= arguments[0] && (f.hidden || f.getAttribute("data-shown") === String(n)));"""


def wait_shown(driver, n, timeout=300):
    """Until the playground page has shown its n-th explanation (or failed to start)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: d.execute_script(SHOWN, n))
