"""`maskref explain` and the tracing hook it reads (refimpl/trace.py, refimpl/showing/).

- Tracing changes nothing: a traced matcher and an untraced one give the same masks and
  stats along random paths (with rollback).
- The trace explains every refusal: for each refused token, the walk skipped a subtree on
  its path, and the recogniser agrees — the bytes before that point are read, the byte
  there is refused; no allowed token has a skip on its path.
- The text format as snapshots (tests/data/explain/; MASKREF_UPDATE_SNAPSHOTS=1 rewrites
  them after a change you have read), the DOT format's structure, the CLI, and the
  Jupyter reprs parse as HTML with well-formed SVG.
"""
import os
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary
from refimpl.showing import dot, explain, text
from refimpl.showing.cli import main
from refimpl.showing.steps import death
from refimpl.trace import Tracer
from tests.support.budget import examples
from tests.support.grammars import (
    cfg_grammar,
    cfg_grammars,
    cfg_tokens,
    lockstep,
    regex_grammar,
    regexes,
    token_lists,
    vocabulary,
)
from tests.support.page import read_page
from tests.support.paths import DATA

SNAPSHOTS = os.path.join(DATA, "explain")


def check_refusals(m, mask):
    """Every refused token (of bytes) has a skipped subtree on its path, where the
    recogniser refuses the same byte after reading the bytes before it."""
    trace = m.tracer.masks[-1]
    rec = m.recognizer
    for t, data in enumerate(m.vocab.tokens):
        if not m.vocab.is_grammar_token(t) or not data:
            continue
        found = death(m, trace, t)
        if t in mask:
            assert found is None, (t, data, found)
            continue
        assert found is not None, (t, data)
        offset, skip = found
        assert data[offset] == skip.byte
        before = rec.bytes_consumed
        assert rec.consume_bytes(data[:offset]), (t, data, offset)
        assert rec.state == skip.state
        assert not rec.consume_bytes(data[offset:offset + 1]), (t, data, offset)
        rec.rollback(rec.bytes_consumed - before)


def traced_path(grammar, vocab, choices):
    plain, traced = Matcher(grammar, vocab), Matcher(grammar, vocab)
    traced.tracer = Tracer()
    lockstep(plain, traced, vocab, choices, same_stats=True)
    # and along a path of the traced one, every refusal explained
    m = Matcher(grammar, vocab)
    m.tracer = Tracer()
    for choice in list(choices) + [None]:
        mask = m.mask()
        check_refusals(m, mask)
        tokens = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if choice is None or not tokens:
            break
        assert m.consume(tokens[choice % len(tokens)])


@settings(max_examples=examples(100))
@given(regexes, token_lists, st.lists(st.integers(0, 1000), max_size=5))
def test_tracing_regex_grammars(pattern, tokens, choices):
    traced_path(regex_grammar(pattern), vocabulary(tokens), choices)


@settings(max_examples=examples(100))
@given(cfg_grammars(), cfg_tokens, st.lists(st.integers(0, 1000), max_size=5))
def test_tracing_cfg_grammars(ir, tokens, choices):
    traced_path(cfg_grammar(ir), vocabulary(tokens), choices)


def test_tracing_json_with_slices_on_gpt2():
    """Slices applied whole, and refusals found in the slices' tries."""
    g = Grammar.from_json_schema({"type": "object", "properties": {"a": {"type": "string"}}})
    vocab = Vocabulary.load("gpt2")
    m = Matcher(g, vocab)
    m.tracer = Tracer()
    assert m.consume_bytes(b'{"a": "x')
    mask = m.mask()
    trace = m.tracer.masks[-1]
    assert trace.slices and len(trace.tries) > 1
    plain = Matcher(g, vocab)
    plain.consume_bytes(b'{"a": "x')
    assert plain.mask() == mask
    check_refusals(m, mask)
    in_slices = {k for k, trie in enumerate(trace.tries) if trie is not m.trie}
    assert in_slices and any(s.trie in in_slices for s in trace.skips)


def test_tracing_needs_the_python_walk():
    from refimpl import open_matcher

    try:
        m = open_matcher(Grammar.from_regex("a"), Vocabulary.from_bytes([b"a"]), backend="native")
    except Exception as e:  # not built here: the rule is tested where it is
        pytest.skip("the native backend is not built: %s" % e)
    with pytest.raises(ValueError, match="tracing needs refimpl's own trie walk"):
        m.tracer = Tracer()


# -- the text format: snapshots ------------------------------------------------------------

JSONISH = r"""
start: value
value: object | array | NUMBER | STRING
object: "{" (pair ("," pair)*)? "}"
pair: STRING ":" value
array: "[" (value ("," value)*)? "]"
STRING: /"[^"\\]*"/
NUMBER: /[0-9]+/
%ignore /[ \t\n]+/
"""
SMALL = [b"{", b"}", b"[", b"]", b'"', b'"a"', b'":', b",", b" ", b"1", b"12", b"3", b"a", b"b", b'{"', b'"}', b"</s>"]

CASES = {
    # a number with an optional fraction, byte by byte: the derivatives, one lexeme
    "regex_number": (lambda: Grammar.from_regex(r"[0-9]+(\.[0-9]+)?"), "bytes", "12.5", ()),
    # a JSON-like Lark grammar: lexemes ending, rows pushed and reused, %ignore, refusals
    "lark_jsonish": (lambda: Grammar.from_lark(JSONISH), "small", '{"a": [1, 12]}', ("}", "a")),
    # right recursion: Leo's transitive items
    "leo_right_recursion": (lambda: Grammar.from_lark('start: "a" start | "b"'), "bytes", "aaab", ()),
    # a lazy lexeme: it ends as soon as it matches
    "lazy_lexeme": (lambda: Grammar.from_lark('start: "<" body ">"\nbody[lazy]: /[a-z]+x/'), "bytes", "<abx>", ()),
}


def _vocab(name):
    if name == "small":
        return Vocabulary.from_bytes(SMALL, eos_token_id=len(SMALL) - 1)
    return Vocabulary.load(name)


@pytest.mark.parametrize("case", sorted(CASES))
def test_text_snapshots(case):
    grammar, vocab, prefix, why = CASES[case]
    got = text.render(explain(grammar(), _vocab(vocab), text=prefix, why=list(why)))
    path = os.path.join(SNAPSHOTS, case + ".txt")
    if os.environ.get("MASKREF_UPDATE_SNAPSHOTS"):
        os.makedirs(SNAPSHOTS, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(got)
    with open(path, encoding="utf-8") as f:
        assert got == f.read()


def test_the_explanation_follows_the_engine():
    """What the steps say, checked against the engine's own answers at each step."""
    g, vocab = Grammar.from_lark(JSONISH), _vocab("small")
    ex = explain(g, vocab, text='{"a": [1, 12]}', why=["}"])
    m = Matcher(g, vocab)
    assert ex.stopped == ""
    assert "".join(s.token_text or "" for s in ex.steps) == '{"a": [1, 12]}'
    for step in ex.steps:
        if step.token is not None:
            assert m.consume(step.token)
        mask = m.mask()
        assert step.allowed == len(mask) and step.eos == (vocab.eos_token_id in mask)
        rec = m.recognizer
        assert step.rows[-1].items == [rec.parser.item_to_string(i) for i in rec.parser.rows[rec.top - 1].items]
        assert step.forced_bytes == m.forced_bytes().decode()
        refused_asked = [r for r in step.refusals if r.token == vocab.tokens.index(b"}")]
        assert bool(refused_asked) == (vocab.tokens.index(b"}") not in mask)
    # the bytes of each token are the token
    assert all("".join(b.byte for b in s.bytes).replace("␠", " ") == s.token_text for s in ex.steps[1:])


def test_a_prefix_that_does_not_fit_stops_with_a_reason():
    ex = explain(Grammar.from_regex("[0-9]+"), Vocabulary.load("bytes"), text="12x")
    assert [s.text for s in ex.steps] == ["", "1", "12"]
    assert ex.stopped == "no allowed token begins 'x'"
    ex = explain(Grammar.from_regex("[0-9]+"), Vocabulary.load("bytes"), tokens=[ord("1"), ord("y")])
    assert len(ex.steps) == 2 and ex.stopped.startswith("token 121 ('y') is not allowed after step 1")


def test_refusals_of_special_tokens():
    ex = explain(Grammar.from_regex("ab"), Vocabulary.load("bytes"), text="a", why=[256])
    assert ex.steps[0].refusals[0].why == "EOS: the input may not end here"
    assert ex.steps[1].refusals[0].token == 256


# -- DOT -----------------------------------------------------------------------------------

def test_dot_graphs_are_well_formed():
    ex = explain(Grammar.from_lark(JSONISH), Vocabulary.load("gpt2"), text='{"a": [1')
    out = dot.render(ex)
    graphs = re.findall(r"^digraph (\w+) \{\n(.*?)^\}$", out, re.S | re.M)
    assert [name for name, _ in graphs] == ["lexer_dfa", "token_trie"]
    for name, body in graphs:
        declared = set(re.findall(r"^  (\w+) \[label=", body, re.M))
        edges = re.findall(r"^  (\w+) -> (\w+)", body, re.M)
        assert edges and all(a in declared | {"n0"} and b in declared for a, b in edges), name
    # the trie: the children the walk went into come first; the current DFA state filled
    first = re.search(r'n0 \[label="root"\];\n  n\d+ \[label="(\d)[^"]*", color="(\w+)"', out)
    assert first and first.group(2) in ("green", "black") and 'fillcolor="#ffe08a"' in out
    colours = set(re.findall(r'color="(\w+)"', out))
    assert {"red", "black"} <= colours


# -- the CLI and the reprs -----------------------------------------------------------------

def test_cli_text_and_dot(tmp_path, capsys):
    assert main(["explain", "--regex", "ab*", "--vocab", "bytes", "--prefix", "ab", "--format", "text"]) == 0
    got = capsys.readouterr().out
    assert got == text.render(explain(Grammar.from_regex("ab*"), Vocabulary.load("bytes"), text="ab"))
    out = tmp_path / "dfa.dot"
    assert main(["explain", "--regex", "ab*", "--vocab", "bytes", "--prefix", "a", "--format", "dot",
                 "--out", str(out)]) == 0
    assert out.read_text().startswith("digraph lexer_dfa {")
    assert main(["explain", "--regex", "ab*", "--vocab", "bytes", "--prefix", "ax", "--format", "text"]) == 1


def check_html(fragment):
    """Balanced tags (test_explain_page.parse) and every SVG well-formed XML."""
    read_page(fragment)
    for svg in re.findall(r"<svg.*?</svg>", fragment, re.S):
        ET.fromstring(svg)


def test_jupyter_reprs():
    g = Grammar.from_lark(JSONISH)
    m = Matcher(g, Vocabulary.load("gpt2"))
    assert m.consume_bytes(b'{"a<b>": [1')
    for obj in (g, m, m.mask()):
        out = obj._repr_html_()
        check_html(out)
    out = m._repr_html_()
    assert "NUMBER" in out and "[value → &quot;[&quot; • (value" in out and "tokens allowed" in out
    assert "<svg" in m.mask()._repr_html_()
