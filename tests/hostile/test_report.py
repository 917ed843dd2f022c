"""docs/hostile.md's figures are the regeneration of the committed results
(results/hostile/) by `python -m hostile report` (hostile/report.py): a hand edit, or
results committed without regenerating the page, fails here."""
import difflib

from hostile import report
from tests.support.paths import ROOT

RESULTS = ROOT / "results" / "hostile"
PAGE = ROOT / "docs" / "hostile.md"


def test_hostile_md_is_the_regeneration(monkeypatch):
    monkeypatch.chdir(ROOT)
    latest = report.load([str(RESULTS)]) if RESULTS.is_dir() else {}
    have = PAGE.read_text(encoding="utf-8")
    want = report.regenerate(have, latest)
    diff = "\n".join(list(difflib.unified_diff(have.splitlines(), want.splitlines(), "docs/hostile.md",
                                               "regenerated", lineterm=""))[:40])
    assert have == want, "docs/hostile.md is not the regeneration of results/hostile/ (%s):\n%s" % (
        report.REGENERATE, diff)
