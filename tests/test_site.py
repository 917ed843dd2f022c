"""The documentation site (mkdocs.yml, README "Documentation"): its navigation names every
page of docs/ and only pages that exist (no stale nav); built, it has a page for each, and
nothing on it loads from outside the site (it builds and reads offline)."""
import re
from html.parser import HTMLParser

from tests.support.paths import ROOT

DOCS = ROOT / "docs"


def nav_pages():
    """The pages mkdocs.yml's nav names, in order, read from its `nav:` block (no YAML
    library needed: every entry is `- page.md` or `- Title: page.md`)."""
    lines = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines()
    start = lines.index("nav:") + 1
    block = []
    for line in lines[start:]:
        if line and not line[0].isspace() and not line.startswith("-"):
            break  # the next top-level key
        block.append(line)
    return [m.group(1) for m in (re.match(r"\s*-\s+(?:.*?:\s+)?(\S+\.md)\s*$", line) for line in block) if m]


def doc_pages():
    return sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


def test_the_nav_names_every_page_of_docs():
    assert "index.md" in nav_pages() and "reference/refimpl.md" in nav_pages()
    missing = sorted(set(doc_pages()) - set(nav_pages()))
    assert not missing, "pages in docs/ that mkdocs.yml's nav leaves out: %s" % missing


def test_the_nav_names_only_pages_that_exist_once():
    stale = [page for page in nav_pages() if not (DOCS / page).is_file()]
    assert not stale, "mkdocs.yml's nav names pages docs/ does not have: %s" % stale
    assert len(nav_pages()) == len(set(nav_pages())), "a page twice in the nav"


class _Loads(HTMLParser):
    """What a page makes the browser fetch by itself: scripts, stylesheets, images, frames."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "audio", "video") and a.get("src"):
            self.urls.append(a["src"])
        if tag == "link" and a.get("href") and a.get("rel") not in ("canonical",):
            self.urls.append(a["href"])


def test_the_built_site_has_every_page_and_loads_nothing_from_outside(built_site):
    for page in nav_pages():
        assert (built_site / page.replace(".md", ".html")).is_file(), page
    outside = {}
    for html in built_site.rglob("*.html"):
        loads = _Loads()
        loads.feed(html.read_text(encoding="utf-8"))
        far = [u for u in loads.urls if re.match(r"(?i)([a-z][a-z0-9+.-]*:)?//", u) and not u.startswith("data:")]
        if far:
            outside[html.relative_to(built_site).as_posix()] = far
    assert not outside, outside


def test_the_api_reference_renders_the_public_names(built_site):
    page = (built_site / "reference" / "refimpl.html").read_text(encoding="utf-8")
    import refimpl

    for name in refimpl.__all__:
        assert 'id="refimpl.%s"' % name in page, name


def test_doctests_read_as_code_on_the_site(built_site):
    page = (built_site / "index.html").read_text(encoding="utf-8")
    assert '<code class="language-pycon">&gt;&gt;&gt; from refimpl import' in page
    assert "<blockquote>" not in page
