"""The alternatives of each disjunction (refimpl/frontends/jsonschema/disjunctions.py):
anyOf, exact oneOf, if/then/else, enum/const of containers, and the dependencies."""
import pytest

from refimpl import Grammar
from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.frontends.jsonschema.disjunctions import Disjunction
from refimpl.frontends.jsonschema.profiles import ALL, PARTIAL
from tests.support.text_outcome import outcome


def alternatives(schema, keyword, T="object", sub=None, **options):
    """The alternatives as lists of (pointer or value, negated), and their profiles."""
    c = compiler_for(schema, **options)
    s = c.comp.subschemas
    options_, profiles = c.disjunctions.options(Disjunction(s.root, keyword, sub), T, ())
    shown = [[(s.pointer(a.node) if s.pointer(a.node).count("/") < 3 else s.value(a.node), a.negated) for a in o]
             for o in options_]
    return shown, profiles


def test_any_of_and_if():
    assert alternatives({"anyOf": [{"required": ["a"]}, {}]}, "anyOf") == (
        [[("/anyOf/0", False)], [("/anyOf/1", False)]], [PARTIAL, ALL])
    assert alternatives({"if": {"required": ["a"]}, "then": {"maxProperties": 2}}, "if")[0] == [
        [("/if", False), ("/then", False)], [("/if", True)]]
    assert alternatives({"if": {"required": ["a"]}, "else": {"minProperties": 2}}, "if")[0] == [
        [("/if", False)], [("/if", True), ("/else", False)]]


def test_enum_and_const_of_containers_are_schemas_of_their_values():
    shown, _ = alternatives({"enum": [[1], {"a": [True]}, "x", {}]}, "enum")
    assert shown == [[("/const", False)], [("/const", False)]]
    c = compiler_for({"enum": [[1], {"a": [True]}, "x", {}]})
    s = c.comp.subschemas
    (first,), (second,) = c.disjunctions.options(Disjunction(s.root, "enum", None), "object", ())[0]
    assert s.value(first.node) == {"type": "object", "properties": {"a": {"type": "array", "prefixItems": [
        {"const": True}], "items": False, "minItems": 1}}, "required": ["a"], "additionalProperties": False}
    assert s.value(second.node) == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert alternatives({"const": "x"}, "const")[0] == []  # no object: no alternative


def test_dependencies_absent_or_present():
    c = compiler_for({"dependentSchemas": {"b": {"required": ["c"]}}, "dependencies": {"a": ["b", "a"]}})
    s = c.comp.subschemas
    absent, present = c.disjunctions.options(Disjunction(s.root, "dependentSchemas", "b"), "object", ())[0]
    assert [s.value(a.node) for a in absent] == [{"properties": {"b": False}}]
    assert [s.value(a.node) for a in present] == [{"required": ["b"]}, {"required": ["c"]}]
    absent, present = c.disjunctions.options(Disjunction(s.root, "dependencies", "a"), "object", ())[0]
    assert [s.value(a.node) for a in present] == [{"required": ["b", "a"]}]  # the dependents first
    assert s.pointer(present[0].node) == "/dependencies/a"
    with pytest.raises(SchemaError, match="values must be arrays of strings"):
        alternatives({"dependentRequired": {"a": [1]}}, "dependentRequired", sub="a")


def test_one_of_negates_only_the_kids_that_may_overlap():
    kinds = [{"properties": {"k": {"const": k}}, "required": ["k"]} for k in "ab"] + [{"maxProperties": 3}]
    shown, _ = alternatives({"oneOf": kinds}, "oneOf")
    assert shown == [[("/oneOf/0", False), ("/oneOf/2", True)], [("/oneOf/1", False), ("/oneOf/2", True)],
                     [("/oneOf/2", False), ("/oneOf/0", True), ("/oneOf/1", True)]]


def test_one_of_negates_nothing_for_a_kid_without_values_of_the_type():
    """A kid that allows no T-value has an empty option: no negation is built for it, so
    one whose negation is not expressible (a closed object) does not make a oneOf of an
    object and an array inexact (it was refused, found by issue 35's line coverage)."""
    closed = {"type": "object", "properties": {"t": {"const": "x"}}, "additionalProperties": False}
    array = {"type": "array", "prefixItems": [{"const": 1}], "items": False}
    shown, _ = alternatives({"oneOf": [closed, array]}, "oneOf")
    assert shown == [[("/oneOf/0", False), ("/oneOf/1", True)], [("/oneOf/1", False)]]
    g = Grammar.from_json_schema({"oneOf": [closed, array]})
    assert [outcome(g, t) == "accept" for t in ('{"t":"x"}', "[1]", '{"t":"x","u":1}', "[1,1]")] == [
        True, True, False, False]


def test_one_of_is_coerced_to_any_of_only_when_asked():
    with pytest.raises(SchemaError, match="oneOf cannot be enforced exactly"):
        Grammar.from_json_schema({"oneOf": [{"type": "array", "uniqueItems": True}, {"type": "array"}]}, lenient=False)
    schema = {"oneOf": [{"patternProperties": {"^a": {"type": "integer"}}}, {"type": "object"}]}
    coerced = Grammar.from_json_schema(schema, coerce_one_of=True)
    assert [k.keyword for k in coerced.ignored_keywords] == ["oneOf"]
    assert alternatives(schema, "oneOf", coerce_one_of=True)[0] == [[("/oneOf/0", False)], [("/oneOf/1", False)]]


def test_options_are_made_once_per_type_and_scope():
    c = compiler_for({"anyOf": [{}, {}]})
    gid = Disjunction(c.comp.subschemas.root, "anyOf", None)
    assert c.disjunctions.options(gid, "array", ()) is c.disjunctions.options(gid, "array", ())
    assert c.disjunctions.options(gid, "array", (5,)) is not c.disjunctions.options(gid, "array", ())
