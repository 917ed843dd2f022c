"""JSON values (refimpl/frontends/jsonschema/values.py): a schema given as JSON text is
read with exact decimals, and malformed text is a SchemaError; a value no JSON text holds
is a SchemaError at its place, a number too long a LimitError; numbers' canonical text."""
from decimal import Decimal

import pytest

from refimpl import Grammar, LimitError, Limits
from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema import read_json_text
from refimpl.frontends.jsonschema.values import escape_pointer, json_type, number_text
from refimpl.frontends.jsontext import read_json
from tests.support.text_outcome import outcome


def accepts(grammar, text) -> bool:
    return outcome(grammar, text) == "accept"


def test_schema_as_json_text_with_exact_decimals():
    g = Grammar.from_json_schema('{"type": "number", "minimum": 0.1, "maximum": 0.30000000000000000001}')
    assert accepts(g, "0.3") and accepts(g, "0.1") and not accepts(g, "0.09")
    assert read_json_text('[1, 1.5e2, "x"]') == [1, read_json_text("1.5e2"), "x"]


@pytest.mark.parametrize("text, message", [
    ('{"type": "integer"', "unexpected end of text"),
    ('{"type": integer}', "unexpected character 'i' at offset 9"),
    ('{"a": 1,}', "key must be a string"),
    ("[] []", "extra data"),
])
def test_malformed_json_text(text, message):
    with pytest.raises(SchemaError, match=message):
        Grammar.from_json_schema(text)


def test_canonical_number_texts_types_and_pointers():
    assert [number_text(x) for x in (1, 1.0, 2.5, -0.0, Decimal("1.50"), Decimal("1e3"), 10 ** 20)] == [
        "1", "1", "2.5", "0", "1.5", "1000", "100000000000000000000"]
    with pytest.raises(SchemaError):
        number_text(float("inf"))
    assert [json_type(x) for x in (None, True, 1, 1.5, "s", [], {})] == [
        "null", "boolean", "number", "number", "string", "array", "object"]
    assert escape_pointer("a/b~c") == "a~1b~0c"


def _cycle():
    c = {"type": "array"}
    c["items"] = [c]
    return {"properties": {"a": c}}


@pytest.mark.parametrize("schema, pointer, message", [
    ({1: {}}, "", "keys must be strings, got 1"),
    ({"properties": {1: {}}}, "/properties", "keys must be strings"),
    ({"type": ("string",)}, "/type", r"not a JSON value \(a tuple: use a list\)"),
    ({"const": [1, {b"x"}]}, "/const/1", r"not a JSON value \(set\)"),
    ({"anyOf": [{"minimum": float("nan")}]}, "/anyOf/0/minimum", "numbers must be finite, got nan"),
    ({"maximum": Decimal("-Infinity")}, "/maximum", "numbers must be finite"),
    (_cycle(), "/properties/a/items/0", "the value holds itself"),
    (b'{"type": "string", "pattern": "\xff"}', "", "not UTF-8 text: byte 0xFF at offset 31"),
])
def test_values_no_json_text_holds_are_schema_errors_at_their_place(schema, pointer, message):
    """Found by fuzzing (hostile/targets/schemas.py): these raised AttributeError or
    UnicodeDecodeError, or looped (a cycle), or named "/" for the place."""
    with pytest.raises(SchemaError, match=message) as e:
        Grammar.from_json_schema(schema)
    assert e.value.pointer == pointer


def test_a_container_shared_by_two_places_is_fine():
    s = {"type": "integer", "minimum": 0}
    g = Grammar.from_json_schema({"type": "array", "prefixItems": [s, s], "items": s})
    assert accepts(g, "[1,2,3]") and not accepts(g, "[1,-2]")


@pytest.mark.parametrize("schema", [
    '{"minimum": 1e999999999}',  # hung: int() of a billion-digit Decimal
    '{"exclusiveMaximum": 1e-50000, "minimum": 0}',  # hung: 50,000 fraction digits
    '{"multipleOf": 1e-999999999}',  # ZeroDivisionError
    '{"maxLength": ' + "1" * 4301 + "}",  # ValueError: int(text) past 4,300 digits
    {"const": 10 ** 5000},  # ValueError: str(int) past 4,300 digits
])
def test_numbers_longer_than_the_limit_are_limit_errors(schema):
    with pytest.raises(LimitError) as e:
        Grammar.from_json_schema(schema)
    assert e.value.limit == "number_digits"


def test_long_numbers_within_a_raised_limit_compile():
    g = Grammar.from_json_schema({"type": "integer", "minimum": 10 ** 1500}, limits=Limits(number_digits=2000))
    assert accepts(g, "1" + "0" * 1500) and not accepts(g, "9" * 1500)
    # past int()'s 4,300 digits: a Decimal (built from its digits: PyPy's Decimal(text) stops there)
    assert read_json("1" * 5000)[0] == Decimal((0, (1,) * 5000, 0))


def nested_properties(levels):
    schema = {}
    for _ in range(levels):
        schema = {"properties": {"a": schema}}
    return schema


def test_a_schema_nested_deeper_than_the_limit_is_refused_where_it_goes_too_deep():
    """Every level costs the compiler rules and time (64,000 levels of properties: 45 s):
    Limits.schema_depth stops it, naming the place; within a raised limit it compiles."""
    deepest = r"/properties/a/properties/a/.* \.\.\. .*/a/properties"  # the pointer, cut short
    with pytest.raises(LimitError, match=r"schema_depth=2000 .*nested 2001 levels deep at " + deepest):
        Grammar.from_json_schema(nested_properties(1000))
    with pytest.raises(LimitError, match="schema_depth=10"):
        Grammar.from_json_schema({"const": [[[[[[[[[[[1]]]]]]]]]]]}, limits=Limits(schema_depth=10))
    assert accepts(Grammar.from_json_schema(nested_properties(3), limits=Limits(schema_depth=7)), '{"a": {"a": {}}}')
    with pytest.raises(LimitError, match="schema_depth=6"):
        Grammar.from_json_schema(nested_properties(3), limits=Limits(schema_depth=6))
