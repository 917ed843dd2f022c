"""The syntax tree (refimpl/regex/ast.py): nodes are immutable values, compared, hashed and
printed without recursion; `dump` of every kind of node."""
import pytest

from refimpl.regex.ast import (
    Alternation,
    Anchor,
    ByteClass,
    ByteLiteral,
    Class,
    Complement,
    Concat,
    Empty,
    Intersection,
    Literal,
    Repeat,
    dump,
)
from refimpl.regex.reader import read_pattern
from tests.support.regex_strategies import quick


def test_nodes_are_values():
    a = read_pattern("a|b*")
    b = Alternation((Literal(97), Repeat(Literal(98), 0, None)))
    assert a == b and hash(a) == hash(b)
    assert a != read_pattern("a|b+") and a != read_pattern("(?i)a|b*")
    assert {read_pattern("x"), read_pattern("x")} == {Literal(120)}
    assert read_pattern("ab") == Concat((Literal(97), Literal(98)))
    assert read_pattern("") == Empty()
    assert read_pattern("(?-u)[a]") == ByteClass(1 << 97)
    with pytest.raises(AttributeError):
        a.items = ()
    assert "Literal(97, False, offset=0)" in repr(a)
    assert read_pattern("ab").items[1].offset == 1


def test_offsets_do_not_count_in_equality():
    assert Literal(97, offset=3) == Literal(97) and hash(Literal(97, offset=3)) == hash(Literal(97))
    assert Literal(97, True) != Literal(97)


def test_constructor_checks_its_fields():
    with pytest.raises(TypeError):
        Literal()
    with pytest.raises(TypeError):
        Literal(97, False, 0, 1)
    with pytest.raises(TypeError):
        Literal(97, colour=1)


@pytest.mark.parametrize("node,expected", [
    (Empty(), "empty"),
    (Literal(0x61), "'a'"),
    (Literal(0xE9, True), "i'\\u{E9}'"),
    (ByteLiteral(0xFF), "\\xFF"),
    (Class(((0x30, 0x39), (0x61, 0x61))), "[0-9a]"),
    (Class(((0, 0x60), (0x62, 0xD7FF), (0xE000, 0x10FFFF))), "[^a]"),
    (Class(((0, 0xD7FF), (0xE000, 0x10FFFF))), "any"),
    (ByteClass(0b111 << 0x41), "bytes[\\x41-\\x43]"),
    (Anchor("^"), "^"),
    (Concat((Literal(0x61), Anchor("$"))), "(concat 'a' $)"),
    (Alternation((Literal(0x61), Empty())), "(alt 'a' empty)"),
    (Intersection((Literal(0x61), Complement(Literal(0x62)))), "(and 'a' (not 'b'))"),
    (Repeat(Literal(0x61), 2, None), "(repeat 2 inf 'a')"),
    (Repeat(Literal(0x61), 0, 3), "(repeat 0 3 'a')"),
])
def test_dump(node, expected):
    assert dump(node) == expected


def test_deep_trees_need_no_recursion():
    deep = Literal(0x61)
    twin = Literal(0x61)
    for i in range(10_000):
        deep = Concat((Literal(0x62), Repeat(deep, 0, None, offset=i)))
        twin = Concat((Literal(0x62), Repeat(twin, 0, None)))
    assert quick(lambda: deep == twin and hash(deep) == hash(twin))
    assert quick(lambda: dump(deep)).startswith("(concat 'b' (repeat 0 inf (concat 'b'")
    assert quick(lambda: repr(deep)).startswith("Concat(")
    assert len(deep.children()) == 2
