"""The `lark` package (Earley, dynamic lexer) as an independent oracle for acceptance.

Lark's dynamic lexer tries every way to split the input into terminals; maskref (like
llguidance) lexes greedily. The two define the same language when every terminal is a
single character, which is the class generated here: random rules over one-character
string literals, with `?`, `*`, `+`, groups and alternation, and recursion. Grammars whose
terminals can match longer text are excluded: there greedy lexing is a different language
by design (docs/semantics.md, rule 2).
"""
import itertools

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


def lark_accepts(parser, text):
    try:
        parser.parse(text)
        return True
    except lark.exceptions.LarkError:
        return False


@settings(max_examples=examples(150))
@given(grammars)
def test_acceptance_agrees_with_lark(text):
    try:
        oracle = lark.Lark(text, parser="earley", lexer="dynamic")
    except lark.exceptions.GrammarError:
        return  # e.g. a rule that lark considers empty or unusable: nothing to compare
    grammar = lark_to_ir(text).compile()
    for n in range(6):
        for word in itertools.product(CHARS, repeat=n):
            s = "".join(word)
            r = Recognizer(grammar)
            ours = r.consume_bytes(s.encode()) and r.is_accepting()
            assert ours == lark_accepts(oracle, s), (text, s)
