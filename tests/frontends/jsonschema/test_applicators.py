"""The in-place applicators (refimpl/frontends/jsonschema/applicators.py): which
subschemas apply to the same value as a node, and the fold over them that profiles and
scalars are computed by."""
import pytest

from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema import DEFAULT_OPTIONS
from refimpl.frontends.jsonschema.applicators import Applicators
from refimpl.frontends.jsonschema.compilation import Compilation, Unsupported
from refimpl.frontends.jsonschema.subschemas import TRUE, Subschemas
from refimpl.grammar.ir import GrammarIR


def applicators(schema, **options):
    return Applicators(Compilation(GrammarIR(), Subschemas(schema), dict(DEFAULT_OPTIONS, **options), 0))


def shown(a, n):
    s = a.subschemas
    return [(kw, [s.pointer(c) if c != TRUE else "true" for c in kids]) for kw, kids in a.of(n)]


def test_in_key_order_with_if_then_else_and_refs():
    a = applicators({"if": {"type": "string"}, "else": {"maxLength": 2}, "$defs": {"d": {}},
                     "$ref": "#/$defs/d", "anyOf": [{}, {}], "properties": {"p": {"allOf": [{}]}}})
    assert shown(a, a.subschemas.root) == [("if", ["/if", "true", "/else"]), ("$ref", ["/$defs/d"]),
                                           ("anyOf", ["/anyOf/0", "/anyOf/1"])]
    assert shown(a, a.subschemas.child(a.subschemas.root, True)) == []


def test_recursive_ref_is_unsupported_unless_lenient():
    with pytest.raises(SchemaError, match="recursive references are not supported"):
        applicators({"$recursiveRef": "#"}).of(2)
    a = applicators({"$recursiveRef": "#"}, lenient=True)
    assert a.of(a.subschemas.root) == [] and [k.keyword for k in a.comp.ignored] == ["$recursiveRef"]


def test_dynamic_ref_is_static_when_one_resource_defines_its_anchor():
    schema = {"$id": "http://x.org/root", "$dynamicAnchor": "node", "items": {"$dynamicRef": "#node"}}
    a = applicators(schema)
    items = a.subschemas.child(a.subschemas.root, schema["items"])
    assert a.ref_target(items, "$dynamicRef") == a.subschemas.root
    two = {"$id": "http://x.org/root", "$dynamicAnchor": "node", "items": {"$dynamicRef": "#node"},
           "$defs": {"other": {"$id": "other", "$dynamicAnchor": "node"}}}
    a = applicators(two)
    with pytest.raises(Unsupported, match="depends on the dynamic scope"):
        a.ref_target(a.subschemas.child(a.subschemas.root, two["items"]), "$dynamicRef")
    with pytest.raises(SchemaError, match="must be a string"):
        applicators({"$ref": 3}).of(2)


def test_fold_is_bottom_up_and_reports_cycles():
    schema = {"allOf": [{"anyOf": [{"title": "x"}, {"title": "y"}]}, {"not": {}}]}
    a = applicators(schema)
    order = []

    def combine(n, get):
        order.append(a.subschemas.pointer(n))
        return 1 + sum(get(c) for _, kids in a.of(n) for c in kids)

    assert a.fold(a.subschemas.root, {}, lambda n: n, combine, lambda n: 0) == 6
    assert order.index("/allOf/0/anyOf/0") < order.index("/allOf/0") < order.index("")
    cyclic = applicators({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})
    met = []
    cyclic.fold(cyclic.subschemas.root, {}, lambda n: n, lambda n, get: [get(c) for _, ks in cyclic.of(n) for c in ks],
                lambda n: met.append(cyclic.subschemas.pointer(n)))
    assert met == ["/$defs/a"]
