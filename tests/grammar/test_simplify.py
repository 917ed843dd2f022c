"""The simplifier (refimpl/grammar/simplify.py): simplification keeps
the language — of lexeme sequences (property test against a naive bounded recogniser) and
of bytes under the lexer — and each rewrite's conditions hold.
"""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.frontends.lark import lark_to_ir
from refimpl.grammar.ir import GrammarIR
from refimpl.grammar.repetition import optional, plus, repeat, star
from refimpl.grammar.simplify import (
    inline_aliases,
    inline_single_use,
    merge_equivalent_nonterminals,
    merge_literals,
    productive_nonterminals,
    remove_unproductive,
    simplify,
)
from refimpl.regex import ExprSet
from tests.support.budget import examples
from tests.support.languages import bounded_language


@st.composite
def random_grammars(draw) -> GrammarIR:
    """Small BNF grammars over 2-3 single-byte literal lexemes, built directly."""
    es = ExprSet()
    ir = GrammarIR(es)
    n_lexemes = draw(st.integers(2, 3))
    lexemes = [ir.add_lexeme('"%s"' % c, es.literal(c.encode())) for c in "abc"[:n_lexemes]]
    n_nt = draw(st.integers(1, 5))
    for k in range(n_nt):
        ir.add_nonterminal("n%d" % k)
    symbols = st.sampled_from(lexemes + list(range(n_nt)))
    rules = draw(st.lists(st.tuples(st.integers(0, n_nt - 1), st.lists(symbols, max_size=4)), max_size=12))
    for lhs, rhs in rules:
        ir.add_rule(lhs, rhs)
    ir.start = 0
    if draw(st.booleans()):  # exercise the EBNF helpers as well
        sym = draw(symbols)
        lo = draw(st.integers(0, 4))
        hi = draw(st.one_of(st.none(), st.integers(lo, lo + 5)))
        helper = draw(st.sampled_from(["repeat", "star", "plus", "optional"]))
        made = {"repeat": lambda: repeat(ir, sym, lo, hi), "star": lambda: star(ir, sym),
                "plus": lambda: plus(ir, sym), "optional": lambda: optional(ir, sym)}[helper]()
        ir.add_rule(draw(st.integers(0, n_nt - 1)), (made, draw(symbols)))
    if draw(st.booleans()):
        ir.ignore = es.literal(b" ")  # disables merge_literals
    return ir


@settings(max_examples=examples(500))
@given(random_grammars())
def test_simplify_keeps_the_language(ir: GrammarIR) -> None:
    before = bounded_language(ir)
    simplified = simplify(ir)
    assert bounded_language(simplified) == before
    # the start symbol derives nothing exactly when no rule is left (Grammar.is_empty)
    assert (not simplified.rules) == (not productive_nonterminals(ir.rules, [False] * len(ir.names))[ir.start])
    # every pass on its own keeps the language too
    base = remove_unproductive(ir)
    for rewrite in (inline_aliases, inline_single_use, merge_equivalent_nonterminals, merge_literals):
        assert bounded_language(rewrite(base)) == before, rewrite.__name__


WORDS = [bytes(w) for n in range(5) for w in itertools.product(b"ab ", repeat=n)]


def recognizer_accepts(ir: GrammarIR, data: bytes) -> bool:
    """Acceptance by the byte-level recogniser (lexer + Earley parser)."""
    from refimpl.recognition.recognizer import Recognizer

    r = Recognizer(ir.compile())
    return r.consume_bytes(data) and r.is_accepting()


@settings(max_examples=examples(40))
@given(random_grammars())
def test_simplify_keeps_the_byte_language_under_the_lexer(ir: GrammarIR) -> None:
    """The same property through the real lexer (greedy lexemes, %ignore): in particular
    merge_literals must not change which byte strings are accepted. The baseline is the
    grammar without unproductive rules, whose removal is a deliberate change for the lexer
    (see remove_unproductive and test_unproductive_rules_matter_to_the_lexer)."""
    simplified = simplify(ir)
    ir = remove_unproductive(ir)
    for word in WORDS:
        assert recognizer_accepts(ir, word) == recognizer_accepts(simplified, word), word


def test_unproductive_rules_matter_to_the_lexer() -> None:
    """Pruning a dead alternative changes whether trailing %ignore text is accepted
    (llguidance, which does not prune, accepts "a "); documented in remove_unproductive."""
    ir = lark_to_ir('start: "a" | "a"* never\nnever: never "x"\n%ignore " "')
    assert recognizer_accepts(ir, b"a ")
    assert not recognizer_accepts(simplify(ir), b"a ")
    assert recognizer_accepts(simplify(ir), b"a") and recognizer_accepts(ir, b"a")


def test_merge_literals_counterexample_under_the_lexer() -> None:
    """Why merge_literals needs more than "no %ignore": merging by hand changes the language."""
    original = lark_to_ir('start: "a" "b" | "a" t\nt: "b" "c"')
    merged_by_hand = lark_to_ir('start: "ab" | "a" t\nt: "bc"')
    assert recognizer_accepts(original, b"abc")
    assert not recognizer_accepts(merged_by_hand, b"abc")
    assert recognizer_accepts(simplify(original), b"abc")


def test_start_deriving_nothing() -> None:
    """A start symbol that derives nothing (its derivations are infinite, or use a lexeme
    whose language is empty) leaves no rule: the empty language, not an error."""
    for text in ('start: start "a"', 'start: A\nA: "a" & "b"', 'start: A\nA: /[^\\s\\S]/',
                 'start: x\nx: y "a"\ny: x | "b" x'):
        simplified = simplify(lark_to_ir(text))
        assert simplified.rules == [] and simplified.names[simplified.start] == "start", text
        assert not recognizer_accepts(simplified, b"") and not recognizer_accepts(simplified, b"a")


def test_merge_literals_condition() -> None:
    """Merged only when the lexer cannot tell the difference (see merge_literals)."""
    merged = simplify(lark_to_ir('start: "a" "b" "c" | "d"'))
    assert sorted(lx.name for lx in merged.lexemes) == ['"abc"', '"d"']
    # "a" "b" | "a" t, t: "b" "c": merging would make the lexer read "ab" inside "abc"
    kept = simplify(lark_to_ir('start: "a" "b" | "a" t\nt: "b" "c"'))
    assert sorted(lx.name for lx in kept.lexemes) == ['"a"', '"b"', '"c"']
    # with %ignore, "a" "b" accepts "a b": never merged
    kept = simplify(lark_to_ir('start: "a" "b"\n%ignore " "'))
    assert len(kept.lexemes) == 2
    # a regex lexeme anywhere: not merged
    kept = simplify(lark_to_ir('start: "a" "b" /[0-9]+/'))
    assert len(kept.lexemes) == 3




# ================================================= many literal alternatives as one lexeme

_words = st.lists(st.text("abc", min_size=1, max_size=3), min_size=2, max_size=8, unique=True)
_contexts = [
    'start: a\na: {}',
    'start: a "x" a | "ab" a\na: {}',
    'start: (a | B)+\na: {}\nB: /b[bc]*/',
    'start: a a\na: {} | "c" a\n%ignore " "',
    'start: a?\na: {}\nb: "zz" | a',
]


@settings(max_examples=examples(40), deadline=None)
@given(_words, st.sampled_from(_contexts), st.lists(st.integers(0, 100), max_size=4))
def test_merged_literal_alternatives_give_the_naive_masks(words, context, choices):
    """The grammar with the alternatives merged (at 2 and more) has the masks of the same
    grammar without the merge, by the naive definition, along random paths."""
    import importlib

    from refimpl import Grammar, Matcher, Vocabulary, naive_mask

    module = importlib.import_module("refimpl.grammar.simplify")
    text = context.format(" | ".join('"%s"' % w for w in words))
    vocab = Vocabulary.from_bytes([b"a", b"b", b"c", b"ab", b"bc", b"x", b" ", b"abc", b"ca", b"cab", b"zz", b""])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, "merge_literal_alternatives", lambda ir: ir)
        plain = Grammar.from_lark(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, "LITERAL_ALTERNATIVES", 2)
        merged = Grammar.from_lark(text)
    assert any(lx.name.startswith("(") for lx in merged.ir.lexemes), merged.ir.to_text()
    m = Matcher(merged, vocab)
    path = []
    for choice in choices:
        mask = m.mask()
        assert mask == naive_mask(plain, vocab, path), (text, path)
        allowed = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not allowed:
            break
        t = allowed[choice % len(allowed)]
        assert m.consume(t)
        path.append(t)


def test_literal_alternatives_are_merged_from_sixteen_on():
    words = ["w%02d" % i for i in range(16)]
    g = lark_to_ir("start: " + " | ".join('"%s"' % w for w in words[:15]))
    assert len(simplify(g).lexemes) == 15
    g = lark_to_ir("start: " + " | ".join('"%s"' % w for w in words))
    (lexeme,) = simplify(g).lexemes
    assert lexeme.name == '("w00" | "w01" | "w02" | ... 16 literals)'
