"""The scalar keywords of one subschema (refimpl/frontends/jsonschema/keywords.py):
number bounds and multipleOf, string length, pattern and format, as regexes; their
contradictions recorded for the message, what cannot be enforced reported."""
import pytest

from refimpl.errors import LimitError, SchemaError
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.frontends.jsonschema.languages import matches
from refimpl.limits import Limits


def numbers(schema, integer_only=False, **options):
    c = compiler_for(schema, **options)
    root = c.comp.subschemas.root
    e = c.keywords.number(root, integer_only)
    return c, (lambda text: matches(c.comp.es, e, text))


def strings(schema, **options):
    c = compiler_for(schema, **options)
    e = c.keywords.string(c.comp.subschemas.root)
    return c, (lambda text: matches(c.comp.es, e, text))


def test_bounds_and_the_draft_4_exclusive_flags():
    _, ok = numbers({"minimum": 1.5, "exclusiveMaximum": 3})
    assert [ok(t) for t in ("1.5", "1.50", "2.999", "3", "1.4")] == [True, True, True, False, False]
    _, ok = numbers({"minimum": 1, "exclusiveMinimum": True, "maximum": 2})  # draft 4
    assert [ok(t) for t in ("1", "1.01", "2")] == [False, True, True]
    _, ok = numbers({"minimum": 1, "exclusiveMinimum": 2})  # the stricter bound wins
    assert [ok(t) for t in ("2", "2.5")] == [False, True]


def test_contradictions_are_recorded_not_raised():
    c, ok = numbers({"minimum": 3, "maximum": 1})
    assert not ok("2") and c.comp.node_reasons[c.comp.subschemas.root].message == "minimum (3) is greater than maximum (1)"
    c, _ = numbers({"minimum": 1, "exclusiveMaximum": 1})
    assert c.comp.node_reasons[c.comp.subschemas.root].message == "the interval [1, 1) is empty"
    c, _ = numbers({"exclusiveMinimum": 0, "exclusiveMaximum": 1}, integer_only=True)
    assert "integer interval (0, 1) contains no integer values" in c.comp.node_reasons[c.comp.subschemas.root].message
    c, ok = strings({"minLength": 3, "maxLength": 2})
    assert not ok("abc") and c.comp.node_reasons[c.comp.subschemas.root].pointer == ""


def test_multiple_of_by_automaton_or_by_listing_few_multiples():
    _, ok = numbers({"multipleOf": 0.25})
    assert [ok(t) for t in ("0.5", "0.50", "0.75", "0.1", "1e1")] == [True, True, True, False, False]
    with pytest.raises(SchemaError, match="multipleOf cannot be enforced exactly"):
        numbers({"multipleOf": 0.123456789})
    _, ok = numbers({"multipleOf": 0.123456789, "minimum": 0, "maximum": 1})  # few multiples: listed
    assert ok("0.246913578") and not ok("0.2")
    c, ok = numbers({"multipleOf": 0.123456789}, lenient=True)
    assert ok("0.5") and [k.keyword for k in c.comp.ignored] == ["multipleOf"]
    with pytest.raises(SchemaError, match="multipleOf must be greater than 0"):
        numbers({"multipleOf": 0})
    with pytest.raises(SchemaError, match="minimum must be a number"):
        numbers({"minimum": "1"})


def test_length_pattern_and_format():
    _, ok = strings({"minLength": 1, "maxLength": 2, "pattern": "b"})
    assert [ok(t) for t in ("b", "éb", "ab", "abb", "", "a")] == [True, True, True, False, False, False]
    _, ok = strings({"format": "ipv4"})
    assert ok("10.0.0.1") and not ok("256.0.0.1")
    with pytest.raises(LimitError):
        strings({"maxLength": 10 ** 9}, limits=Limits(repeat_bound=1000))
    with pytest.raises(SchemaError, match="format cannot be enforced exactly"):
        strings({"format": "no-such-format"})
    c, ok = strings({"pattern": "(?<=a)b", "format": "idn-email"}, lenient=True)
    assert ok("anything") and [k.keyword for k in c.comp.ignored] == ["pattern", "format"]


def test_a_pattern_is_compiled_once_per_compilation():
    c = compiler_for({"properties": {"a": {"pattern": "^x+$"}, "b": {"pattern": "^x+$"}}})
    s = c.comp.subschemas
    a, b = (s.child(s.root, s.value(s.root)["properties"][k]) for k in "ab")
    assert c.keywords.pattern("^x+$", a, "pattern") == c.keywords.pattern("^x+$", b, "pattern")
    assert c.keywords.string(a) == c.keywords.string(b)
