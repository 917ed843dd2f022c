"""Arrays laid out (refimpl/frontends/jsonschema/arrays.py): the items by position, their
counts, contains counted by states, unevaluatedItems, and what cannot be enforced."""
import pytest

from refimpl import Grammar, Limits
from refimpl.errors import LimitError, SchemaError
from refimpl.frontends.jsonschema.compilation import Atom
from refimpl.frontends.jsonschema.compiler import compiler_for
from tests.support.text_outcome import outcome


def accepted(schema, texts, **options):
    g = Grammar.from_json_schema(schema, **options)
    return [outcome(g, text) == "accept" for text in texts]


def test_items_by_position_and_counts():
    schema = {"prefixItems": [{"type": "string"}, {"type": "boolean"}], "items": {"type": "integer"},
              "minItems": 1, "maxItems": 4}
    texts = ["[]", '["a"]', '["a",true]', '["a",true,1,2]', '["a",true,1,2,3]', "[1]", '["a",1]']
    assert accepted(schema, texts) == [False, True, True, True, False, False, False]
    old = {"items": [{"type": "string"}], "additionalItems": {"type": "null"}}  # draft 4 to 2019-09
    assert accepted(old, ['["a",null,null]', '["a",1]', "[]"]) == [True, False, True]
    assert accepted({"maxItems": 0}, ["[]", "[1]"]) == [True, False]


def test_contains_counts_the_matching_items():
    schema = {"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3, "maxItems": 5}
    texts = ['[1,"a",2]', '[1,"a"]', "[1,2,3,4]", '["a","b",1,2,3]', '["a","b",1,2,3,"c"]']
    assert accepted(schema, texts) == [True, False, False, True, False]
    two = {"allOf": [{"contains": {"type": "integer"}}, {"contains": {"type": "string"}}]}
    assert accepted(two, ['[1,"a"]', "[1,2]", '["a"]']) == [True, False, False]


def test_unevaluated_items_after_what_is_evaluated():
    schema = {"prefixItems": [{"type": "string"}], "contains": {"type": "boolean"}, "unevaluatedItems": {"type": "null"}}
    texts = ['["a",true]', '["a",null,true]', '["a",1,true]', '["a",true,true]', "[true]"]
    # an item matching contains is evaluated; others after the prefix must be null
    assert accepted(schema, texts) == [True, True, False, True, False]


def test_contradictory_counts_are_recorded():
    c = compiler_for({"minItems": 3, "maxItems": 2})
    nt = c.comp.ir.add_nonterminal("json[]")
    c.arrays.layout([Atom(c.comp.subschemas.root, False, ())], nt)
    assert c.comp.nonterminal_reasons[nt].message == "minItems (3) is greater than maxItems (2)"
    assert not [rule for rule in c.comp.ir.rules if rule[0] == nt]


def test_what_cannot_be_enforced():
    with pytest.raises(SchemaError, match="uniqueItems cannot be enforced exactly"):
        Grammar.from_json_schema({"type": "array", "uniqueItems": True})
    assert accepted({"uniqueItems": True, "maxItems": 1}, ["[1]", "[1,1]"]) == [True, False]  # nothing to enforce
    five = {"allOf": [{"contains": {"const": i}} for i in range(5)]}
    with pytest.raises(SchemaError, match="more than 4 contains"):
        Grammar.from_json_schema(five)
    g = Grammar.from_json_schema(five, lenient=True)
    assert [k.keyword for k in g.ignored_keywords] == ["contains"]


def test_size_limits():
    with pytest.raises(LimitError):
        Grammar.from_json_schema({"type": "array", "prefixItems": [{"type": "integer"}] * 50},
                                 limits=Limits(grammar_size=20))
