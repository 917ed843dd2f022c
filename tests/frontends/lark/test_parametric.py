"""Parametric Lark rules (llguidance's docs/parametric.md), expanded in the frontend."""
from __future__ import annotations

import itertools
from typing import List, Optional

import pytest

from refimpl import Grammar
from refimpl.errors import GrammarError, LimitError
from refimpl.frontends.lark import lark_to_ir
from refimpl.frontends.lark.parametric import eval_cond, eval_expr
from refimpl.limits import Limits
from refimpl.recognition.recognizer import Recognizer
from tests.support.text_outcome import outcome


def accepts(grammar: Grammar, text: str) -> bool:
    r = Recognizer(grammar.compiled)
    return all(r.consume_byte(b) for b in text.encode()) and r.is_accepting()


def language(source: str, alphabet: str, max_len: int):
    g = Grammar.from_lark(source)
    return {"".join(w) for n in range(max_len + 1) for w in itertools.product(alphabet, repeat=n)
            if accepts(g, "".join(w))}


PERM = '''start: perm::0x0
perm::_ : ""                  %if is_ones([0:3])
        | "a" perm::set_bit(0) %if bit_clear(0)
        | "b" perm::set_bit(1) %if bit_clear(1)
        | "c" perm::set_bit(2) %if bit_clear(2)
'''


def test_permutations() -> None:
    assert language(PERM, "abc", 4) == {"".join(p) for p in itertools.permutations("abc")}


def test_pick_between_one_and_three_unique() -> None:
    alts = "\n".join('| "%s" p::set_bit(%d) %%if and(bit_clear(%d), bit_count_lt(_, 3))' % (c, i, i)
                     for i, c in enumerate("abcd"))
    src = 'start: p::0\np::_: "" %%if bit_count_ge(_, 1)\n%s\n' % alts
    want = {w for n in (1, 2, 3) for w in map("".join, itertools.permutations("abcd", n))}
    assert language(src, "abcd", 4) == want


def test_counters_incr_and_lt() -> None:
    src = '''start: lst::0x0
lst::_ : "a" lst::incr([0:2]) %if lt([0:2], 2)
       | "b" lst::incr([2:4]) %if lt([2:4], 1)
       | ""
'''
    got = language(src, "ab", 4)
    assert got == {w for w in map("".join, itertools.chain.from_iterable(
        itertools.product("ab", repeat=n) for n in range(5))) if w.count("a") <= 2 and w.count("b") <= 1}


def test_self_reference_chain_and_decr() -> None:
    src = '''start: aa::3
aa::_ : "x" aa::decr(_) %if gt(_, 0)
      | bb::_ %if eq(_, 0)
bb::_ : "y" %if is_zeros(_)
'''
    assert language(src, "xy", 5) == {"xxxy"}


def test_groups_see_the_parameter_and_bit_ops() -> None:
    src = '''start: r::5 | s::1
r::_ : ("a" %if eq([0:3], 5) | "b" %if not(true))
s::_ : ("c" %if or(bit_set(0), bit_clear(1))) t::clear_bit(0)
t::_ : "d" %if eq(_, 0)
'''
    assert language(src, "abcd", 2) == {"a", "cd"}


def test_functions() -> None:
    assert eval_expr(("incr", 0, 3), 7) == 7
    assert eval_expr(("decr", 0, 3), 0) == 0
    assert eval_expr(("and", 6, 0), 5) == 4
    assert eval_cond((("count", "eq", 0, 64, 3),), 0b10101)
    assert eval_cond((("cmp", "lt", 4, 8, 2), ("true",), ("and",)), 0x1F)


def test_hex_and_names_in_ir() -> None:
    ir = lark_to_ir('start: a::0x1F\na::_: "z" %if eq(_, 31)')
    assert "a::0x1f" in ir.to_text()


@pytest.mark.parametrize("grammar, message, line, column", [
    ('start: foo\nfoo::_: "a" %if eq([3:3], 0)', "end bit index 3 must be > start bit index 3", 2, 20),
    ('start: foo\nfoo::_: "a" %if eq([64:65], 0)', "number 64 is too large; must be <= 63", 2, 21),
    ('start: foo\nfoo::_: "a" %if eq(0, 0)', "expected '_' or '[start_bit:stop_bit]'", 2, 20),
    ('start: foo\nfoo::_: "a" %if foo([0:1], 0)', "Unexpected condition 'foo'", 2, 17),
    ('start: x::frob(1)\nx::_: "a" %if true', "Unexpected expression 'frob'", 1, 11),
    ('start: x::0\nx::_: "a"', "parametric, but its body doesn't need parameters", 2, 1),
    ('start: x\nx::_: "a" %if bit_set(0)', "is parametric, but no parameter provided", 1, 8),
    ('start: x::1\nx: "a"', "is not parametric, but parameter provided", 1, 8),
    ('start: "a" x::_\nx::_: "a" %if bit_set(0)', "not parametric, but its body requires parameters", 1, 1),
    ('start: A\nA: "a" %if true', "'%if' is not supported in terminals", 2, 8),
    ('start: A\nA: x::0', "name::param cannot be used in terminals", 2, 5),
    ('start: x::0\nx::_[stop="X"]: "a" %if true', "stop-like is not supported for parametric rules", 2, 6),
    ('start: x::0\nx::_: "a" %if and(true, true', "expected ')' to close 'and'", 2, 29),
    ('start: x::0\nx::_: "a" %if true "b"', "after the %if condition", 2, 20),
    ('start: x::0\nx::a: "a"', "Expected token '_'", 2, 4),
    ('start: x::0x10000000000000000\nx::_: "a" %if true', "does not fit in 64 bits", 1, 11),
])
def test_errors_have_positions(grammar: str, message: str, line: Optional[int], column: Optional[int]) -> None:
    with pytest.raises(GrammarError) as info:
        lark_to_ir(grammar)
    assert message in info.value.message
    assert (info.value.line, info.value.column) == (line, column)


def test_nested_conditions_are_not_recursive() -> None:
    """3,000 nested `not(...)`s are evaluated without recursion, and evaluated right: an
    even number of them keeps `true`, an odd number makes it false."""
    def language(n: int) -> List[str]:
        deep = "not(" * n + "true" + ")" * n
        g = Grammar.from_lark('start: x::0\nx::_: "a" %%if %s\n | "b" %%if bit_clear(0)' % deep)
        return [w for w in ("a", "b") if outcome(g, w) == "accept"]

    assert language(3000) == ["a", "b"] and language(2999) == ["b"]


def test_instance_limit() -> None:
    src = 'start: a::0\na::_: "a" a::incr(_) | ""'
    with pytest.raises(LimitError) as info:
        lark_to_ir(src)
    assert info.value.limit == "parametric_instances"
    with pytest.raises(LimitError):
        lark_to_ir('start: a::0\na::_: "a" a::incr(_) %if lt(_, 50) | ""', limits=Limits(parametric_instances=10))
    lark_to_ir('start: a::0\na::_: "a" a::incr(_) %if lt(_, 50) | ""', limits=Limits(parametric_instances=60))


def test_unreachable_parametric_rules_are_not_expanded() -> None:
    """`a::_` instantiates without end (a::0, a::1, ...); unreachable, it is never expanded —
    reachable, it hits the instance limit."""
    rules = 'u: a::0\na::_: "a" a::incr(_) | ""'
    ir = lark_to_ir('start: "a"\n' + rules)
    assert not [name for name in ir.names if "a::" in name]
    with pytest.raises(LimitError) as info:
        lark_to_ir('start: "a" u\n' + rules)
    assert info.value.limit == "parametric_instances"
