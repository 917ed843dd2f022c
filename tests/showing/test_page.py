"""`maskref explain --format html` (refimpl/showing/page.py, svg.py): the page, read back.

The page is parsed with html.parser into a small tree, and what it shows is compared with
the Explanation it was drawn from: one section a step, the token, the Earley items, the
mask count, the refusals; every <svg> is well-formed XML; nothing is fetched from a
network; every text from the vocabulary is escaped. The browser test
(test_page_browser.py) checks the script that switches the steps.
"""
import json
import re
import shlex
import xml.etree.ElementTree as ET

import pytest

from refimpl import Grammar, Vocabulary
from refimpl.html import plain
from refimpl.showing import explain, svg
from refimpl.showing import page as page_mod
from refimpl.showing.cli import main
from refimpl.showing.steps import DfaView
from tests.support.grammars import JSONISH
from tests.support.page import read_page
from tests.support.paths import ROOT

SVG_NS = "{http://www.w3.org/2000/svg}"


# tokens that need escaping: markup, quotes, ampersands, control characters, a lone
# continuation byte; and the ones the prefix is made of
NASTY = [b"<", b"</script>", b"&amp;", b'"\'', b"\x00", b"\n", b"\x1b[0m", b"\x7f", b"\xa9", b'"<b>"']
TOKENS = [b"{", b'{"', b"a", b'":', b" ", b" [", b"1", b"12", b",", b" true", b"]", b"}", b'"', b"b", b":"] + NASTY


@pytest.fixture(scope="module")
def vocab():
    return Vocabulary.from_bytes(TOKENS, eos_token_id=None)


@pytest.fixture(scope="module")
def explained(vocab):
    why = ["</script>", "\x00", vocab.tokens.index(b"\x1b[0m")]
    return explain(Grammar.from_lark(JSONISH), vocab, text='{"a": [1, true', why=why)


@pytest.fixture(scope="module")
def page(explained):
    return page_mod.render(explained)


@pytest.fixture(scope="module")
def tree(page):
    return read_page(page)


def test_the_prefix_is_stepped_through(explained):
    """The fixture itself: several tokens, refusals of the nasty tokens asked for."""
    assert not explained.stopped
    assert len(explained.steps) >= 6
    assert any(f.text == "</script>" for s in explained.steps for f in s.refusals)


def test_one_section_a_step_only_the_first_shown(explained, tree):
    sections = tree.root.find_all("section", "step")
    assert [s.attrs["data-step"] for s in sections] == [str(s.index) for s in explained.steps]
    assert ["hidden" in s.attrs for s in sections] == [False] + [True] * (len(sections) - 1)
    counter = tree.root.find(id="step-counter")
    assert counter.text() == "step 0 of %d" % (len(explained.steps) - 1)
    for hook in ("prev", "next", "first", "last", "why-input", "why-result"):
        assert len(tree.root.find_all(id=hook)) == 1, hook


def _section(tree, i):
    return tree.root.find("section", "step", data_step=str(i))


def test_each_step_shows_its_token_items_and_mask(explained, tree):
    for s in explained.steps:
        sec = _section(tree, s.index)
        head = sec.find("h2")
        if s.token is None:
            assert "the start" in head.text()
        else:
            chip = head.find("span", "tok")
            assert chip.attrs["data-token"] == str(s.token)
            assert chip.find("span", "tt").text() == plain(s.token_text).replace(" ", "␣")
            assert sec.attrs["data-token"] == str(s.token)
        items = [li.text() for ul in sec.find_all("ul", "items") for li in ul.kids("li")]
        assert items == [i for r in s.rows for i in r.items]
        leo = [li.text() for ul in sec.find_all("ul", "leo") for li in ul.kids("li")]
        assert leo == ["Leo " + x for r in s.rows for x in r.leo]
        reused = [("reused" in div.classes) for div in sec.find_all("div", "erow")]
        assert reused == [r.reused for r in s.rows]
        assert sec.find(cls="mask-count").text() == str(s.allowed)
        assert sec.attrs["data-allowed"] == str(s.allowed)
        assert "of %d tokens allowed" % s.vocab_size in sec.find("p", "big").text()
        sample = [int(t.attrs["data-token"]) for t in sec.find("div", "sample").find_all("span", "tok")]
        assert sample == [t for t, _ in s.sample]
        assert sec.find("b", "eos").text() == ("allowed" if s.eos else "not allowed")


def test_the_bytes_and_the_lexer_state(explained, tree):
    for s in explained.steps:
        sec = _section(tree, s.index)
        rows = sec.find("table", "bytes").find("tbody").find_all("tr") if s.bytes else []
        assert [r.find("td", "byte").text() for r in rows] == [svg.glyphs(b.byte) for b in s.bytes]
        for r, b in zip(rows, s.bytes):
            assert [d.text() for d in r.find_all("div", "scan")] == b.scanned
            assert "state %d" % b.after_state in r.find_all("td")[3].text()
        now = sec.find("div", "lexer").find_all("ul", "pairs")[-1] if s.lexer else None
        if now is not None:
            assert [li.find("span", "lexeme").text() for li in now.kids("li")] == [n for n, _ in s.lexer]


def test_text_so_far_marks_the_token(explained, tree):
    for s in explained.steps[1:]:
        marked = _section(tree, s.index).find("pre", "text").find("mark").text()
        assert marked == plain(s.token_text)


def test_refusals_and_why_details(explained, tree):
    seen = 0
    for s in explained.steps:
        sec = _section(tree, s.index)
        lis = [li for ul in sec.find_all("ul", "refusals") for li in ul.kids("li")]
        assert [int(li.attrs["data-token"]) for li in lis] == [f.token for f in s.refusals]
        for li, f in zip(lis, s.refusals):
            assert li.attrs["data-text"] == plain(f.text)
            detail = li.find("div", "why-detail")
            assert "hidden" in detail.attrs
            assert f.why in detail.text()
            if f.byte:
                assert detail.find("dd", "offset").text() == str(f.offset)
                assert detail.find("code", "death-byte").text() == svg.glyphs(f.byte)
            seen += 1
    assert seen > 0


def test_forced_bytes_shown(explained, tree):
    forced = [s for s in explained.steps if s.forced_bytes]
    assert forced, "the grammar forces '{' at the start"
    for s in explained.steps:
        cards = _section(tree, s.index).find_all("div", "forced")
        assert len(cards) == (1 if s.forced_bytes or s.forced_tokens else 0)
        if cards:
            assert cards[0].find("code").text() == plain(s.forced_bytes)


def dfa_pictures(page):
    """Each step's DFA picture (the SVG text), references to one drawn before resolved."""
    by_id = dict(re.findall(r'<div id="(shared-\d+)" class="dfa-pic">(<svg.*?</svg>)</div>', page, re.S))
    out = []
    for card in re.findall(r'<div class="card dfa-card">.*?<div class="scroll">(.*?)</div></div>', page, re.S):
        ref = re.fullmatch(r'<div class="ref" data-ref="(shared-\d+)"></div>', card)
        own = re.fullmatch(r'<div id="shared-\d+" class="dfa-pic">(.*)', card, re.S)
        out.append(by_id[ref.group(1)] if ref else own.group(1))
    return out


def test_every_svg_is_well_formed_xml(page, explained):
    svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
    kinds = {}
    for text in svgs:
        root = ET.fromstring(text)
        assert root.tag == SVG_NS + "svg"
        kinds[root.get("class")] = kinds.get(root.get("class"), 0) + 1
    n = len(explained.steps)
    assert kinds["trie"] == 1 and kinds["legend-dfa"] == 1 and kinds["defs"] == 1  # one grid, painted per step
    assert kinds["dfa"] == len(set(dfa_pictures(page))) and len(dfa_pictures(page)) == n  # each picture once
    # their arrowhead is defined once, outside the sections (in a hidden one it would not draw)
    assert page.count('id="dfa-arrow"') == 1 and page.index('id="dfa-arrow"') < page.index('<section class="step"')
    assert 'url(#dfa-arrow)' in page


def test_dfa_picture_matches_the_view(explained, page):
    pictures = [ET.fromstring(t) for t in dfa_pictures(page)]
    assert len(pictures) == len(explained.steps)
    for s, pic in zip(explained.steps, pictures):
        states = [g for g in pic.iter(SVG_NS + "g") if "state" in g.get("class", "").split()]
        assert [int(g.get("data-state")) for g in states] == [x[0] for x in s.dfa.states]
        for g, (sid, _, accepting, start) in zip(states, s.dfa.states):
            classes = g.get("class").split()
            assert ("accepting" in classes) == accepting
            assert ("current" in classes) == (sid == s.dfa.current)
            circles = len(list(g.iter(SVG_NS + "circle")))
            assert circles == (2 if accepting else 0 if start else 1)
        edges = [g for g in pic.iter(SVG_NS + "g") if "edge" in g.get("class", "").split()]
        assert [g.find(SVG_NS + "title").text for g in edges] == [svg.glyphs(label) for _, _, label in s.dfa.edges]


def test_no_network_reference(tree, page):
    for tag, attrs in tree.start_tags:
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
                assert not re.match(r"\s*(https?:)?//", value or ""), (tag, name, value)
            if name == "xmlns":
                assert value == "http://www.w3.org/2000/svg"
    assert not [t for t, attrs in tree.start_tags if t == "script" and dict(attrs).get("src")]
    urls = re.findall(r"url\(([^)]*)\)", page)
    assert urls and all(u.startswith("#") for u in urls), urls  # only the arrows' markers, in the page
    assert "@import" not in page and "cdn" not in page.lower()
    without_ns = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"https?://", without_ns)


def test_tokens_are_escaped(page, tree, vocab):
    """No token's raw text reaches the markup: every nasty token asked for shows as text."""
    assert "</script>" not in page.split("<script>")[0]
    assert "\x00" not in page and "\x1b" not in page and "\x7f" not in page
    shown = {li.attrs["data-text"] for li in tree.root.find_all("li") if "data-text" in li.attrs}
    assert {"</script>", "\\x00", "\\x1b[0m"} <= shown
    chips = {t.find("span", "tt").text() for t in tree.root.find_all("span", "tok")}
    assert "</script>" in chips and "\\x00" in chips


def script_data(page):
    """The page's data, as its script reads it (`var MASKREF = {...};`)."""
    script = page.split("<script>", 1)[1]
    head = "var MASKREF = "
    assert script.startswith(head)
    return json.loads(script[len(head):script.index(";\n")])


def test_the_trie_grid_counts_the_mask(explained, page):
    """The first-byte grid reads the walk's skips; the tokens left are the mask (this
    grammar has no special tokens, EOS or slices); the page's data holds those counts."""
    data = script_data(page)
    reasons = data["reasons"]
    for s, t, step in zip(explained.steps, explained.traces, data["steps"]):
        d = {"cells": data["grids"][step["cells"]]}
        cells = svg.first_bytes(t.tries, [(k.trie, k.node, k.why) for k in t.skips], [(k.trie, k.node) for k in t.wholes])
        assert sum(c.tokens for c in cells) == sum(1 for x in range(len(explained.vocab))
                                                   if explained.vocab.is_grammar_token(x))
        assert sum(c.tokens - c.refused for c in cells) == s.allowed - s.eos
        assert all(0 <= c.refused <= c.tokens and 0 <= c.whole <= c.tokens - c.refused for c in cells)
        assert d["cells"] == [[c.byte, c.tokens, c.refused, c.whole,
                               reasons.index(svg.SHORT[c.skipped_here]) + 1 if c.skipped_here else 0] for c in cells]
        assert any(c[4] for c in d["cells"]) == any(c.skipped_here for c in cells)


def decode_runs(runs):
    flags = []
    for k, n in enumerate(runs):
        flags.extend([k % 2] * n)
    return bytes(flags)


def test_the_data_holds_every_mask_and_the_vocabulary_once(explained, page, vocab):
    """What the why-box answers from: each step's mask (as runs), every token's text."""
    data = script_data(page)
    assert [decode_runs(data["masks"][d["mask"]]) for d in data["steps"]] == [s.flags for s in explained.steps]
    assert len(data["masks"]) == len({s.flags for s in explained.steps})  # each mask once
    assert data["tokens"] == [t.decode("utf-8", "backslashreplace") for t in vocab.tokens]
    assert data["inexact"] == [vocab.tokens.index(b"\xa9")]  # not UTF-8: asked for by id
    assert data["command"] is None  # rendered from Python: the page says how to ask there
    # a token's text is in the page's data once, however many steps (b" true" is in no sample)
    assert page.split("<script>")[1].count('" true"') == 1


def test_the_page_knows_its_command_line(tmp_path):
    """The command that makes the page (to which the why-box adds --why), quoted for a
    POSIX shell: it splits back into the arguments, and runs."""
    out = tmp_path / "page.html"
    regex = "[0-9]+( 'x'\\$ ?!)?"
    argv = ["explain", "--regex", regex, "--vocab", "bytes", "--prefix", "12 'x'$"]
    assert main(argv + ["--out", str(out)]) == 0
    command = script_data(out.read_text(encoding="utf-8"))["command"]
    assert shlex.split(command) == ["maskref"] + argv
    assert main(shlex.split(command)[1:] + ["--format", "text", "--why", "'"]) == 0


def test_rows_are_written_once(explained, page):
    """An Earley row that stays the same from step to step is drawn once, then referred to."""
    rows = re.findall(r'<div id="(shared-\d+)" class="erow', page)
    refs = re.findall(r'<div class="ref" data-ref="(shared-\d+)">', page)
    row_refs = [r for r in refs if r in rows]
    assert row_refs and len(rows) == len(set(rows))
    assert len(rows) + len(row_refs) == sum(len(s.rows) for s in explained.steps)
    assert len(refs) - len(row_refs) == len(explained.steps) - len(set(dfa_pictures(page)))


def test_the_page_grows_gently_with_the_steps():
    """On GPT-2, doubling the steps adds per step a small share of the page's fixed part
    (the vocabulary once, the style and script): not the ~130 kB a step it took when each
    step drew its own trie grid and rows."""
    gpt2 = Vocabulary.load("gpt2")
    grammar = Grammar.from_lark((ROOT / "docs" / "examples" / "jsonish.lark").read_text(encoding="utf-8"))
    sizes = {}
    for n in (4, 16):
        ex = explain(grammar, gpt2, text="[" + ", ".join(str(i) for i in range(1, n + 1)))
        sizes[len(ex.steps)] = len(page_mod.render(ex).encode("utf-8"))
    (a, small), (b, large) = sorted(sizes.items())
    per_step = (large - small) / (b - a)
    assert per_step < 60_000 and per_step < small / 10, (sizes, per_step)


def test_layout_places_every_state_once():
    states = [(i, "L%d" % i, i % 3 == 0, i in (1, 5)) for i in range(1, 21)]
    edges = [(i, i + 1, "a") for i in range(1, 20)] + [(i, 1, "b") for i in range(2, 21, 3)] + [(4, 4, "[0-9]")]
    edges += [(1, j, "c") for j in range(6, 20)]
    view = DfaView(states, edges, 7, 20, 100)
    where = svg.layout(view)
    assert sorted(where) == list(range(1, 21))
    assert len(set(where.values())) == 20
    assert max(r for _, r in where.values()) < svg.COLUMN
    assert where[1][0] == 0 and where[5][0] == 0  # the start states lead
    ET.fromstring(svg.dfa(view))


def test_render_is_deterministic(explained, page):
    assert page_mod.render(explained) == page


def test_bytes_vocabulary_and_the_cli(tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["explain", "--regex", "ab*", "--vocab", "bytes", "--prefix", "abb", "--why", "c",
                 "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    tree = read_page(out.read_text(encoding="utf-8"))
    sections = tree.root.find_all("section", "step")
    assert len(sections) == 4
    refused = [li.attrs["data-text"] for li in sections[1].find_all("li") if "data-text" in li.attrs]
    assert "c" in refused


def test_a_prefix_not_allowed_is_reported(vocab):
    ex = explain(Grammar.from_lark(JSONISH), vocab, text='{"a": }')
    assert ex.stopped
    tree = read_page(page_mod.render(ex))
    assert tree.root.find("p", "stopped").text() == "Stopped: " + plain(ex.stopped)
    assert len(tree.root.find_all("section", "step")) == len(ex.steps)
