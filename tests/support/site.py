"""The built documentation site for the playground's browser test and its timing tool
(tools/playground_timing.py): where it is, and a local HTTP server over it that logs
every request (a page with WebAssembly is not loaded from a file: URL).

The site is MASKREF_SITE (a folder built by `mkdocs build`, as CI builds it), else built
once here, with MkDocs, into a temporary folder (`build`).
"""
import contextlib
import functools
import http.server
import os
import subprocess
import sys
import threading

from .paths import ROOT


class SiteMissing(Exception):
    """No built site, and none can be built here (the message says why)."""


def site_dir(tmp_dir):
    """A built site with the playground: MASKREF_SITE, or one built into tmp_dir now."""
    given = os.environ.get("MASKREF_SITE")
    if given:
        if not os.path.exists(os.path.join(given, "playground", "pyodide", "pyodide.asm.wasm")):
            raise SiteMissing("MASKREF_SITE=%s holds no built playground (playground/pyodide/)" % given)
        return given
    return build(tmp_dir)


def build(out):
    """`mkdocs build` of the repository's site into `out` (its playground vendored by the
    hook: tools/playground_hook.py)."""
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        raise SiteMissing("MkDocs is not installed (the docs extra), and MASKREF_SITE names no built site") from None
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(out)], cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if done.returncode != 0:
        raise AssertionError("mkdocs build failed:\n%s" % done.stdout)
    return str(out)


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript"})

    def log_message(self, format, *args):  # noqa: A002 -- the base class's name
        self.server.requests.append((self.command, self.path, args[1] if len(args) > 1 else ""))


@contextlib.contextmanager
def serve(folder):
    """An HTTP server on 127.0.0.1 over `folder`, in a thread: yields (its base URL, the
    list of requests served so far as (method, path, status))."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=folder))
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "http://127.0.0.1:%d/" % server.server_address[1], server.requests
    finally:
        server.shutdown()
        server.server_close()
