"""The subschema table (refimpl/frontends/jsonschema/subschemas.py): every subschema a
node with its JSON pointer, `$ref` resolved by pointer, anchor and `$id`, and the
keywords that hold subschemas (SUBSCHEMA_KEYWORDS)."""
import pytest

from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema import SUBSCHEMA_KEYWORDS
from refimpl.frontends.jsonschema.subschemas import FALSE, TRUE, Subschemas, trivial, urljoin


def pointers(schema):
    s = Subschemas(schema)
    return sorted(s.pointer(n) for n in range(2, len(s.nodes)))


def test_every_subschema_keyword_gets_its_nodes():
    schema = {}
    for k in SUBSCHEMA_KEYWORDS.single:
        schema[k] = {"title": k}
    for k in SUBSCHEMA_KEYWORDS.listed:
        if k != "items":  # `items` is also a single subschema, above
            schema[k] = [{"title": k}, {"title": k + "'"}]
    for k in SUBSCHEMA_KEYWORDS.named:
        schema[k] = {"p": {"title": k}}
    expected = ([""] + ["/" + k for k in SUBSCHEMA_KEYWORDS.single]
                + ["/%s/%d" % (k, i) for k in SUBSCHEMA_KEYWORDS.listed if k != "items" for i in (0, 1)]
                + ["/%s/p" % k for k in SUBSCHEMA_KEYWORDS.named])
    assert pointers(schema) == sorted(expected)


def test_old_drafts_items_list_and_dependencies_of_names():
    assert pointers({"items": [{"type": "integer"}, {}], "additionalItems": False}) == ["", "/items/0", "/items/1"]
    # an array of names under `dependencies` is not a schema; a map of them is not checked as one
    assert pointers({"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}) == ["", "/dependencies/c"]
    assert pointers({"dependencies": 3}) == [""]
    with pytest.raises(SchemaError, match="dependentSchemas must be an object"):
        Subschemas({"dependentSchemas": 3})
    with pytest.raises(SchemaError, match="anyOf must be an array"):
        Subschemas({"anyOf": {}})


def test_boolean_schemas_are_nodes_0_and_1():
    s = Subschemas({"items": True, "not": False})
    assert (TRUE, FALSE) == (0, 1) and s.nodes[TRUE].value is True and s.nodes[FALSE].value is False
    assert Subschemas(False).root == FALSE


def test_resolve_by_pointer_anchor_and_id():
    schema = {"$id": "http://x.org/root.json",
              "$defs": {"a~b": {"$anchor": "here", "type": "string"},
                        "other": {"$id": "other.json", "$defs": {"c": {"type": "null"}}}},
              "properties": {"p": {"$ref": "#/$defs/a~0b"}}}
    s = Subschemas(schema)
    a = s.resolve("#/$defs/a~0b", s.root)
    assert s.pointer(a) == "/$defs/a~0b" and s.nodes[a].value == {"$anchor": "here", "type": "string"}
    assert s.resolve("#here", s.root) == a
    assert s.resolve("http://x.org/root.json#here", s.root) == a
    c = s.resolve("other.json#/$defs/c", s.root)
    assert s.nodes[c].value == {"type": "null"}
    with pytest.raises(SchemaError, match="remote schemas are not fetched"):
        s.resolve("http://elsewhere.org/x.json", s.root)
    with pytest.raises(SchemaError, match="nothing at that JSON pointer"):
        s.resolve("#/$defs/nope", s.root)


def test_labels_are_the_last_tokens_of_the_pointer():
    s = Subschemas({"properties": {"a": {"items": {"not": {}}}}})
    deep = max(range(len(s.nodes)), key=lambda n: len(s.pointer(n)))
    assert s.pointer(deep) == "/properties/a/items/not"
    assert s.label(deep) == "…/items/not"


def test_urljoin_resolves_against_non_hierarchical_schemes():
    assert urljoin("urn:example:root", "#frag") == "urn:example:root#frag"
    assert urljoin("tag:x.org,2024:schemas/a.json", "b.json") == "tag:x.org,2024:schemas/b.json"
    assert urljoin("http://x.org/a/b.json", "../c.json") == "http://x.org/c.json"
    assert urljoin("", "d.json") == "d.json"


def test_trivial_schemas_constrain_nothing():
    assert trivial(True) and trivial({}) and trivial({"title": "t", "x-unknown": 1, "$comment": "c"})
    assert not trivial(False) and not trivial({"type": "string"}) and not trivial({"not": {}})


def test_reading_a_node_checks_the_keywords_shapes():
    s = Subschemas({"type": ["integer", "null"], "minItems": 2.0, "maxItems": -1, "anyOf": [], "allOf": [True, {}],
                    "enum": [{"a": [1]}]})
    r = s.root
    assert s.types(r) == {"integer", "null"} and s.count(r, "minItems") == 2 and s.count(r, "minLength") is None
    assert s.list_of(r, "allOf") == [TRUE, s.child(r, s.value(r)["allOf"][1])]
    for call, message, pointer in ((lambda: s.count(r, "maxItems"), "must be a non-negative integer", "/maxItems"),
                                   (lambda: s.list_of(r, "anyOf"), "must be a non-empty array", "/anyOf"),
                                   (lambda: s.child(r, 5), "must be an object or boolean", ""),
                                   (lambda: Subschemas({"type": "strng"}).types(2), "unknown type", "/type")):
        with pytest.raises(SchemaError, match=message) as e:
            call()
        assert e.value.pointer == pointer


def test_const_nodes_are_made_once_per_value():
    s = Subschemas({"enum": [{"a": [1, {"b": None}]}]})
    value = s.value(s.root)["enum"][0]
    n = s.const_node(value, s.root)
    assert s.const_node(value, s.root) == n and s.pointer(n) == "/const"
    assert s.value(n) == {"type": "object", "required": ["a"], "additionalProperties": False, "properties": {
        "a": {"type": "array", "items": False, "minItems": 2, "prefixItems": [
            {"const": 1}, {"type": "object", "properties": {"b": {"const": None}}, "required": ["b"],
                           "additionalProperties": False}]}}}
