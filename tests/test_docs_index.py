"""docs/index.md is the index of the documentation: it links every page of docs/ (one
line each), and every page it links exists."""
import re

from tests.support.paths import ROOT

DOCS = ROOT / "docs"
INDEX = (DOCS / "index.md").read_text(encoding="utf-8")


def linked():
    return set(re.findall(r"\]\(([^)#]+)\)", INDEX))


def test_every_page_is_in_the_index():
    pages = {p.name for p in DOCS.glob("*.md")} - {"index.md"}
    assert pages and not pages - linked(), sorted(pages - linked())


def test_every_page_linked_exists():
    missing = [target for target in linked() if not (DOCS / target).exists()]
    assert linked() and not missing, missing
