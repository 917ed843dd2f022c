"""The `lark` package as an independent oracle for acceptance.

Lark reads the grammar (its EBNF expanded to BNF rules: `Lark(...).rules`); the words the
rules derive are then a least fixpoint, computed here directly. Lark's dynamic lexer tries
every way to split the input into terminals; maskref (like llguidance) lexes greedily. The
two define the same language when every terminal is a single character, which is the class
generated here: random rules over one-character string literals, with `?`, `*`, `+`, groups
and alternation, and recursion. Grammars whose terminals can match longer text are
excluded: there greedy lexing is a different language by design (docs/semantics.md, rule 2).

Lark's own Earley parser gives the same answers, but on these ambiguous grammars it took
minutes per run (98% of this test's time): the fixpoint reads lark's rules in milliseconds.
"""
import itertools
from typing import Dict, Set

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples

lark = pytest.importorskip("lark")

from refimpl.frontends.lark import lark_to_ir  # noqa: E402
from refimpl.recognition.recognizer import Recognizer  # noqa: E402

CHARS = "ab"
NAMES = ["start", "x", "y"]

atoms = st.one_of(st.sampled_from(['"a"', '"b"']), st.sampled_from(NAMES))


def _expression(depth):
    item = atoms if depth == 0 else st.one_of(atoms, _expression(depth - 1).map(lambda e: "(" + e + ")"))
    suffixed = st.tuples(item, st.sampled_from(["", "", "?", "*", "+"])).map("".join)
    sequence = st.lists(suffixed, min_size=1, max_size=3).map(" ".join)
    return st.lists(sequence, min_size=1, max_size=3).map(" | ".join)


grammars = st.tuples(_expression(1), _expression(1), _expression(1)).map(
    lambda bodies: "\n".join("%s: %s" % (n, b) for n, b in zip(NAMES, bodies)) + "\n"
)


def lark_words(parser, n: int) -> Set[str]:
    """The words of at most n characters that lark's rules derive from `start`: each rule's
    words are the concatenations of its symbols' words (a terminal: its one literal),
    iterated until nothing changes (the least fixpoint; lengths bound it)."""
    literal = {t.name: t.pattern.value for t in parser.terminals}
    words: Dict[str, Set[str]] = {r.origin.name: set() for r in parser.rules}
    changed = True
    while changed:
        changed = False
        for rule in parser.rules:
            out = {""}
            for sym in rule.expansion:
                options = {literal[sym.name]} if sym.is_term else words[sym.name]
                out = {w + o for w in out for o in options if len(w) + len(o) <= n}
            if not out <= words[rule.origin.name]:
                words[rule.origin.name] |= out
                changed = True
    return words["start"]


@settings(max_examples=examples(150))
@given(grammars)
def test_acceptance_agrees_with_lark(text):
    try:
        oracle = lark.Lark(text, parser="earley", lexer="dynamic")
    except lark.exceptions.GrammarError:
        return  # e.g. a rule that lark considers empty or unusable: nothing to compare
    grammar = lark_to_ir(text).compile()
    theirs = lark_words(oracle, 5)
    for n in range(6):
        for word in itertools.product(CHARS, repeat=n):
            s = "".join(word)
            r = Recognizer(grammar)
            ours = r.consume_bytes(s.encode()) and r.is_accepting()
            assert ours == (s in theirs), (text, s)


@settings(max_examples=examples(10))
@given(grammars)
def test_the_fixpoint_is_larks_earley_parser(text):
    """The oracle above equals what lark's own parser accepts (words of up to 4 characters:
    lark's Earley parser is slow on these ambiguous grammars)."""
    try:
        parser = lark.Lark(text, parser="earley", lexer="dynamic")
    except lark.exceptions.GrammarError:
        return
    words = lark_words(parser, 4)
    for n in range(5):
        for word in itertools.product(CHARS, repeat=n):
            s = "".join(word)
            try:
                parser.parse(s)
                accepted = True
            except lark.exceptions.LarkError:
                accepted = False
            assert accepted == (s in words), (text, s)
