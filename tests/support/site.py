"""The documentation site, built: for the tests that read it (tests/test_site.py, the
playground's browser test).

CI builds it once, strictly, into `site/` before the tests and names it in MASKREF_SITE
(.ci/run); elsewhere the first test that asks builds it into a temporary folder (once per
test session), with the generator of the `docs` extra — ProperDocs, the maintained
continuation of MkDocs, reading mkdocs.yml — and skips where that is not installed
(unless MASKREF_REQUIRE_MODULES names it: tests/conftest.py)."""
import importlib.util
import os
import subprocess
import sys
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
