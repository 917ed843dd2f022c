"""Objects laid out (refimpl/frontends/jsonschema/objects.py): the named members in
order, then the others, their keys split by the patterns they match; member counts;
unevaluatedProperties; and the bound on pattern regions (docs/jsonschema.md, "Bounds":
SchemaStore's drupal-recipe, 9 unanchored patternProperties)."""
import pytest

from refimpl import Grammar
from refimpl.errors import LimitError
from refimpl.frontends.jsonschema.compilation import Atom
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.limits import Limits
from refimpl.recognition.recognizer import Recognizer
from tests.support.text_outcome import outcome


def accepted(schema, texts, **options):
    g = Grammar.from_json_schema(schema, **options)
    return [outcome(g, text) == "accept" for text in texts]


def test_named_members_in_order_then_the_others():
    schema = {"properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["b", "c"],
              "additionalProperties": {"type": "boolean"}}
    texts = ['{"b":"x","c":true}', '{"a":1,"b":"x","c":true,"d":false}', '{"b":"x","a":1,"c":true}',
             '{"a":1,"c":true}', '{"b":"x","c":true,"a":1}', '{"b":"x","c":1}', '{"b":"x","c":true,"d":false,"e":true}']
    # c is named by required: it comes after the properties, its value additionalProperties'
    assert accepted(schema, texts) == [True, True, False, False, False, False, True]


def test_keys_of_other_members_never_encode_a_named_one():
    schema = {"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    assert accepted(schema, ['{"\\u00e9":"x"}', '{"\\u0061":"x"}', '{"a":1,"b":"x"}']) == [True, False, True]


def test_patterns_and_property_names():
    schema = {"patternProperties": {"^x": {"type": "integer"}, "y$": {"minimum": 3}}, "additionalProperties": False,
              "propertyNames": {"maxLength": 3}}
    texts = ['{"x":1}', '{"xy":3}', '{"xy":2}', '{"y":"s"}', '{"xy":"s"}', '{"z":1}', '{"xabc":1}']
    # a key matching both patterns satisfies both schemas; no other key; at most 3 characters
    assert accepted(schema, texts) == [True, True, False, True, False, False, False]


def test_member_counts_named_and_other():
    schema = {"properties": {"a": {}}, "minProperties": 1, "maxProperties": 2}
    texts = ["{}", '{"a":1}', '{"b":1}', '{"a":1,"b":2}', '{"b":1,"c":2}', '{"a":1,"b":2,"c":3}']
    assert accepted(schema, texts) == [False, True, True, True, True, False]


def test_unevaluated_properties_see_their_scope():
    schema = {"properties": {"a": {}}, "allOf": [{"properties": {"b": {}}}], "unevaluatedProperties": False}
    assert accepted(schema, ['{"a":1,"b":2}', '{"c":1}']) == [True, False]
    schema = {"properties": {"a": {}}, "anyOf": [{"properties": {"b": {}}}, {"required": ["c"]}],
              "unevaluatedProperties": {"type": "string"}}
    assert accepted(schema, ['{"a":1,"b":2}', '{"a":1,"c":"s"}', '{"a":1,"c":2}']) == [True, True, False]


def test_contradictions_and_required_members_are_recorded():
    c = compiler_for({"properties": {"a": False}, "required": ["a", "b"], "maxProperties": 1})
    nt = c.comp.ir.add_nonterminal("json{}")
    root = Atom(c.comp.subschemas.root, False, ())
    c.objects.layout([root], ["a"], ["a", "b"], nt)
    assert c.comp.nonterminal_reasons[nt].message == "required > maxProperties (2 required, maxProperties 1)"
    c = compiler_for({"properties": {"a": False}, "required": ["a"]})
    nt = c.comp.ir.add_nonterminal("json{}")
    c.objects.layout([Atom(c.comp.subschemas.root, False, ())], ["a"], ["a"], nt)
    assert [m.name for m in c.comp.required_of[nt]] == ["a"]


def test_pattern_regions_fail_naming_the_limit():
    # unanchored patterns: every subset of them is matched by some key (2^n regions)
    patterns = {"%s.%s" % (a, a): {"type": "integer", "minimum": i} for i, a in enumerate("abcdefghi")}
    schema = {"type": "object", "patternProperties": patterns}
    with pytest.raises(LimitError) as e:
        Grammar.from_json_schema(schema, limits=Limits(property_regions=64))
    assert e.value.limit == "property_regions"
    few = {"type": "object", "patternProperties": dict(list(patterns.items())[:3])}
    g = Grammar.from_json_schema(few, limits=Limits(property_regions=64))
    for text, ok in ((b'{"a.a-b.b": 1}', True), (b'{"a.a-b.b": 0}', False), (b'{"zz": "x"}', True)):
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text) and r.is_accepting()) == ok, text
