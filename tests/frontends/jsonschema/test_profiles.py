"""Profiles (refimpl/frontends/jsonschema/profiles.py): does a subschema allow all, some
or none of the arrays (objects), through its in-place applicators."""
import pytest

from refimpl.frontends.jsonschema.compilation import Atom
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.frontends.jsonschema.profiles import ALL, NONE, PARTIAL, all_of, any_of


def profile(schema, T):
    c = compiler_for(schema)
    return c.profiles.of(c.comp.subschemas.root, T)


@pytest.mark.parametrize("schema, array, object_", [
    ({}, ALL, ALL),
    (False, NONE, NONE),
    ({"type": "string"}, NONE, NONE),
    ({"type": ["array", "null"], "maxItems": 2}, PARTIAL, NONE),
    ({"enum": [[1], "a"]}, PARTIAL, NONE),
    ({"const": {"a": 1}}, NONE, PARTIAL),
    ({"required": [], "minItems": 0, "uniqueItems": False, "properties": {"a": {}}}, ALL, ALL),
    ({"contains": {"type": "integer"}, "minContains": 0}, ALL, ALL),
    ({"contains": {"type": "integer"}}, PARTIAL, ALL),
    ({"additionalItems": False}, ALL, ALL),  # without an items list it constrains nothing
    ({"items": [{}], "additionalItems": False}, PARTIAL, ALL),
    ({"not": {"type": "array"}}, NONE, ALL),
    ({"not": {"maxItems": 3}}, PARTIAL, NONE),
    ({"oneOf": [{"type": "array"}, {"type": "object"}]}, ALL, ALL),
    ({"oneOf": [{"type": "array"}, {}]}, NONE, ALL),
    ({"anyOf": [{"type": "array", "minItems": 1}, {"type": "array"}]}, ALL, NONE),
    ({"if": {"type": "array"}, "then": {"minItems": 1}, "else": {"type": "object"}}, PARTIAL, ALL),
    ({"$defs": {"a": {"type": "object"}}, "allOf": [{"$ref": "#/$defs/a"}, {"required": ["x"]}]}, NONE, PARTIAL),
])
def test_profile(schema, array, object_):
    assert (profile(schema, "array"), profile(schema, "object")) == (array, object_)


def test_a_reference_cycle_is_partial_not_an_error():
    assert profile({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "array"}]}}, "$ref": "#/$defs/a"},
                   "array") == ALL


def test_negated_atoms_and_the_lattice():
    c = compiler_for({"anyOf": [{"type": "array"}, {"type": "object", "minProperties": 1}]})
    s = c.comp.subschemas
    a, b = s.list_of(s.root, "anyOf")
    assert c.profiles.of_atoms([Atom(a, False, ()), Atom(b, True, ())], "array") == ALL
    assert c.profiles.of_atoms([Atom(a, True, ())], "array") == NONE
    assert c.profiles.of_atoms([Atom(b, True, ())], "object") == PARTIAL
    assert all_of([ALL, PARTIAL, ALL]) == PARTIAL and all_of([PARTIAL, NONE]) == NONE and all_of([]) == ALL
    assert any_of([NONE, PARTIAL]) == PARTIAL and any_of([PARTIAL, ALL]) == ALL and any_of([]) == NONE
