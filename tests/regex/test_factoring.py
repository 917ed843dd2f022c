"""Left factoring (refimpl/regex/factoring.py) keeps the language: every alternation as a
trie of its leading bytes is the same set of words, checked three ways against the
pattern compiled as written (`compile_pattern` does not factor):

* by containment both ways (relevance.is_contained: derivatives of a & ¬b);
* word by word, against `member`-free matching by derivatives, on words near the
  alternatives (their prefixes, extensions and neighbours);
* as grammars: masks of the factored grammar (what `Grammar` builds) against
  `naive_mask` of the same grammar built without the factoring pass, on small
  vocabularies along random paths.
"""
from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Matcher, Vocabulary, naive_mask
from refimpl.regex import ExprSet, compile_pattern
from refimpl.regex.exprs import OR
from refimpl.regex.factoring import left_factored
from refimpl.regex.relevance import is_contained
from tests.support.budget import examples
from tests.support.grammars import regexes
from tests.support.regex_strategies import matches

words = st.lists(st.text("abc", max_size=4), min_size=1, max_size=12)


def _alternation(ws):
    return "|".join(w if w else "(?:)" for w in ws)


@st.composite
def alternations(draw):
    """Alternations of words with common prefixes, alone or inside other operators, and
    random patterns (tests/support/grammars.py) whose alternations are not all words."""
    inner = _alternation(draw(words))
    shape = draw(st.sampled_from(["%s", "x(%s)y", "(%s)*", "(%s)+c", "((%s)|a[bc]+|ab*)", "(%s){2}", "%s"]))
    if draw(st.booleans()):
        return shape % inner
    return draw(regexes)


def _same_language(es, a, b):
    return is_contained(es, a, b) is True and is_contained(es, b, a) is True


@settings(max_examples=examples(200))
@given(alternations(), st.lists(st.text("abcxy", max_size=6), max_size=10))
def test_factored_has_the_pattern_s_language(pattern, probes):
    es = ExprSet()
    e = compile_pattern(es, pattern)
    f = left_factored(es, e)
    assert _same_language(es, e, f), pattern
    for w in probes:
        assert matches(es, e, w.encode()) == matches(es, f, w.encode()), (pattern, w)


@settings(max_examples=examples(100))
@given(words)
def test_a_word_alternation_becomes_a_trie(ws):
    es = ExprSet()
    f = left_factored(es, compile_pattern(es, _alternation(ws)))
    # a trie: no alternation has two members that begin with the same byte
    for x in es.reachable(f):
        node = es.node(x)
        if node.kind == OR:
            firsts = [es.node(es.node(c).children[0]).mask for c in node.children if es.node(c).children]
            assert len(firsts) == len(set(firsts)), (ws, firsts)
    for w in set(ws) | {"", "a", "abcd", "cc"}:
        assert matches(es, f, w.encode()) == (w in ws)


def test_factoring_is_cached_and_idempotent():
    es = ExprSet()
    e = compile_pattern(es, "x(the|then|there|a)*y")
    f = left_factored(es, e)
    assert left_factored(es, e) == f and left_factored(es, f) == f
    assert es.size(f) < es.size(e)


def _unfactored(monkeypatch, pattern):
    """The grammar of `pattern` as the simplifier would build it without factoring."""
    with monkeypatch.context() as m:
        m.setattr(importlib.import_module("refimpl.grammar.simplify"), "factor_alternations", lambda ir: ir)
        return Grammar.from_regex(pattern)


VOCAB = Vocabulary.from_bytes([b"a", b"b", b"c", b"ab", b"abc", b"ba", b"cab", b"x", b"y", b"xa", b"bcy", b""])


@settings(max_examples=examples(40), deadline=None)
@given(alternations(), st.lists(st.integers(0, 100), max_size=4))
def test_factored_grammar_masks_are_the_naive_masks(pattern, choices):
    with pytest.MonkeyPatch.context() as mp:
        plain = _unfactored(mp, pattern)
    factored = Grammar.from_regex(pattern)
    m = Matcher(factored, VOCAB)
    path = []
    for choice in choices:
        mask = m.mask()
        assert mask == naive_mask(plain, VOCAB, path), (pattern, path)
        allowed = [t for t in mask.allowed() if t not in VOCAB.eos_token_ids]
        if not allowed:
            break
        t = allowed[choice % len(allowed)]
        assert m.consume(t)
        path.append(t)


def test_lark_terminals_and_ignores_are_factored():
    g = Grammar.from_lark('start: A "," A\nA: /then|there|the/\n%ignore / \\t| \\n/')
    es = g.ir.es
    assert compile_pattern(es, "the(n|re)?") in [lexeme.expr for lexeme in g.ir.lexemes]
    assert list(g.ir.ignores.values()) == [compile_pattern(es, " [\\t\\n]")]
    m = Matcher(g, Vocabulary.from_bytes([b"the", b"then", b"re", b",", b" \t", b"x"]))
    assert m.consume_bytes(b"there, \tthen") and m.is_accepting()
