"""Repetition as BNF (refimpl/grammar/repetition.py): `x{m,n}` has the language it names,
and asking twice for the same repetition gives the same nonterminal."""
from typing import Optional

from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.grammar.ir import GrammarIR
from refimpl.grammar.repetition import plus, repeat, star
from refimpl.grammar.simplify import simplify
from refimpl.regex import ExprSet
from tests.support.budget import examples
from tests.support.languages import bounded_language


@settings(max_examples=examples(60))
@given(st.integers(0, 7), st.one_of(st.none(), st.integers(0, 9)))
def test_repeat_helper_language(lo: int, hi: Optional[int]) -> None:
    if hi is not None and hi < lo:
        lo, hi = hi, lo
    es = ExprSet()
    ir = GrammarIR(es)
    a = ir.add_lexeme('"a"', es.literal(b"a"))
    ir.start = ir.add_nonterminal("s")
    ir.add_rule(ir.start, (repeat(ir, a, lo, hi),))
    top = 9 if hi is None else hi
    expected = {b"a" * k for k in range(lo, top + 1) if k <= 9}
    assert bounded_language(ir, 9) == expected
    assert bounded_language(simplify(ir), 9) == expected


def test_helpers_share_nonterminals() -> None:
    es = ExprSet()
    ir = GrammarIR(es)
    a = ir.add_lexeme('"a"', es.literal(b"a"))
    assert star(ir, a) == star(ir, a) and plus(ir, a) == plus(ir, a)
    assert repeat(ir, a, 2, 5) == repeat(ir, a, 2, 5)
    assert ir.symbol_name(star(ir, a)) == '"a"*'
