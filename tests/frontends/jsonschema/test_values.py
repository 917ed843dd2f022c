"""JSON values (refimpl/frontends/jsonschema/values.py): a schema given as JSON text is
read with exact decimals, and malformed text is a SchemaError; numbers' canonical text."""
from decimal import Decimal

import pytest

from refimpl import Grammar
from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema import read_json_text
from refimpl.frontends.jsonschema.values import escape_pointer, json_type, number_text
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
