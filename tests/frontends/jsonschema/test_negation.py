"""Negations (refimpl/frontends/jsonschema/negation.py): the arrays (objects) that fail a
subschema, as a new subschema built by De Morgan over its keywords. Checked against the
`jsonschema` package: an instance of type T satisfies the negation iff it fails the
original."""
import pytest

from refimpl import Grammar, SchemaError
from refimpl.frontends.jsonschema.compilation import Unsupported
from refimpl.frontends.jsonschema.compiler import compiler_for

jsonschema = pytest.importorskip("jsonschema", reason="the jsonschema package is a test dependency")

ARRAYS = [[], [1], [1, 2], ["a"], [1, "a"], ["a", "b", "c"], [None, 1.5], [2, 2, 2, 2]]
OBJECTS = [{}, {"a": 1}, {"a": "x"}, {"b": 1}, {"a": 1, "b": 2}, {"a": None, "c": [1]}, {"b": "y", "c": 3}]


def negation(schema, T):
    c = compiler_for(schema)
    s = c.comp.subschemas
    return s.value(c.negation.of(s.root, T))


@pytest.mark.parametrize("schema", [
    {"minItems": 2}, {"maxItems": 1, "items": {"type": "integer"}},
    {"prefixItems": [{"type": "integer"}, {"type": "string"}]},
    {"contains": {"type": "string"}}, {"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3},
    {"anyOf": [{"minItems": 3}, {"items": {"type": "integer"}}]},
    {"oneOf": [{"minItems": 1}, {"items": {"type": "integer"}}]},
    {"if": {"minItems": 2}, "then": {"items": {"type": "integer"}}, "else": {"maxItems": 0}},
    {"enum": [[1], [1, 2], "x"]}, {"type": ["array", "null"], "not": {"maxItems": 1}},
    {"$defs": {"d": {"minItems": 1}}, "$ref": "#/$defs/d"},
])
def test_negated_arrays(schema):
    neg = jsonschema.Draft202012Validator(negation(schema, "array"))
    check = jsonschema.Draft202012Validator(schema)
    for x in ARRAYS:
        assert neg.is_valid(x) == (not check.is_valid(x)), x


@pytest.mark.parametrize("schema", [
    {"required": ["a"]}, {"properties": {"a": {"type": "integer"}}}, {"minProperties": 1, "maxProperties": 1},
    {"dependentRequired": {"a": ["b"]}}, {"dependentSchemas": {"b": {"required": ["c"]}}},
    {"dependencies": {"a": ["b"], "b": {"properties": {"b": {"type": "string"}}}}},
    {"allOf": [{"required": ["a"]}, {"properties": {"a": {"type": "string"}}}]},
    {"const": {"a": 1}}, {"type": "object", "required": ["b"], "properties": {"b": {"const": 1}}},
])
def test_negated_objects(schema):
    draft = jsonschema.Draft7Validator if "dependencies" in schema else jsonschema.Draft202012Validator
    neg = draft(negation(schema, "object"))
    check = draft(schema)
    for x in OBJECTS:
        assert neg.is_valid(x) == (not check.is_valid(x)), x


def test_everything_or_nothing_of_the_type():
    assert negation({"type": "string"}, "array") == {"type": "array"}
    assert negation({"enum": ["a"]}, "object") == {"type": "object"}
    assert negation({"title": "no constraint"}, "array") is False
    assert negation(False, "array") == {"type": "array"}


@pytest.mark.parametrize("schema, keyword", [
    ({"additionalProperties": False}, "additionalProperties"),
    ({"patternProperties": {"^a": {"type": "integer"}}}, "patternProperties"),
    ({"propertyNames": {"maxLength": 1}}, "propertyNames"),
    ({"unevaluatedProperties": False}, "unevaluatedProperties"),
])
def test_what_has_no_expressible_negation(schema, keyword):
    with pytest.raises(Unsupported) as e:
        negation(schema, "object")
    assert e.value.keyword == keyword and e.value.pointer == "/" + keyword
    for unsupported in ({"uniqueItems": True}, {"prefixItems": [{}], "items": {"type": "integer"}},
                        {"unevaluatedItems": False}):
        with pytest.raises(Unsupported):
            negation(unsupported, "array")
    assert negation({"patternProperties": {"^a": True}}, "object") is False  # trivial: nothing to negate


@pytest.mark.parametrize("schema, pointer", [
    ({"type": "object", "not": {"required": [1]}}, "/not/required"),
    ({"type": "object", "oneOf": [{"required": ["a"]}, {"required": [None]}]}, "/oneOf/1/required"),
    ({"type": "object", "not": {"dependentRequired": {"a": [1]}}}, "/not/dependentRequired"),
])
def test_a_negated_list_of_names_must_hold_names(schema, pointer):
    """A name that is not a string raised AttributeError where the negation wrote it into
    a schema of its own (found by the json-schema-value fuzz target)."""
    with pytest.raises(SchemaError, match="arrays? of strings") as e:
        Grammar.from_json_schema(schema)
    assert e.value.pointer == pointer
