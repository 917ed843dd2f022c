"""Unsatisfiable schemas (refimpl/frontends/jsonschema/unsatisfiable.py): when no value
satisfies a schema, the error names the likeliest reason and where it is, with
llguidance's messages where it has them."""
import pytest

from refimpl import Grammar
from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema.compiler import compiler_for


@pytest.mark.parametrize("schema, message, pointer", [
    ({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
     "Unsatisfiable schema: integer interval (0, 1) contains no integer values", ""),
    ({"type": "integer", "minimum": 0.1, "maximum": 0.9},
     "Unsatisfiable schema: integer interval [0.1, 0.9] contains no integer values", ""),
    ({"type": "string", "minLength": 2, "maxLength": 1}, "Unsatisfiable schema: minLength (2) is greater than maxLength (1)", ""),
    ({"allOf": [{"type": "integer", "minimum": 10}, {"type": "integer", "maximum": 5}]},
     "Unsatisfiable schema: minimum (10) is greater than maximum (5)", ""),
    ({"type": "array", "minItems": 3, "maxItems": 2}, "minItems (3) is greater than maxItems (2)", ""),
    ({"type": "object", "properties": {"items": {"type": "array", "minItems": 3, "maxItems": 2}}, "required": ["items"]},
     "required property 'items' is unsatisfiable", ""),
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": False}, "required": ["b"], "additionalProperties": False},
     "Unsatisfiable schema: required property 'b' is unsatisfiable", ""),
    ({"type": "object", "required": ["foo", "bar"], "maxProperties": 1}, "required > maxProperties", ""),
    (False, "the schema is false", ""),
    ({"not": {}}, "'not' excludes every value", "/not"),
    ({"enum": []}, "enum is empty", "/enum"),
    ({"anyOf": [False, False]}, "all options in anyOf are unsatisfiable", "/anyOf"),
    ({"properties": {"a": {"type": "number", "minimum": 3, "allOf": [{"maximum": 1}]}}, "required": ["a"],
      "type": "object"},
     "required property 'a' is unsatisfiable", ""),
    ({"$defs": {"n": {"type": "number", "minimum": 2}}, "allOf": [{"$ref": "#/$defs/n"}, {"exclusiveMaximum": 1}]},
     "Unsatisfiable schema: minimum (2) is greater than exclusiveMaximum (1)", ""),
])
def test_unsatisfiable(schema, message, pointer):
    with pytest.raises(SchemaError) as e:
        Grammar.from_json_schema(schema)
    assert message in str(e.value)
    assert e.value.pointer == pointer


def test_a_satisfiable_schema_passes_and_the_check_reads_what_was_recorded():
    c = compiler_for({"anyOf": [{"type": "integer", "minimum": 3, "maximum": 1}, {"type": "null"}]})
    c.unsatisfiable.check(c.run(c.comp.subschemas.root))  # null is left: no error
    assert [r.message for r in c.comp.node_reasons.values()] == ["minimum (3) is greater than maximum (1)"]
    c = compiler_for({"items": {"not": {}}, "minItems": 1, "type": "array"})
    with pytest.raises(SchemaError, match="'not' excludes every value") as e:
        c.unsatisfiable.check(c.run(c.comp.subschemas.root))
    assert e.value.pointer == "/items/not"
