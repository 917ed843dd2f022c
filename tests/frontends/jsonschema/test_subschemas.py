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
