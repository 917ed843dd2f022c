"""The nonterminals of a compilation (refimpl/frontends/jsonschema/nonterminals.py): one
per conjunction, made once and queued; the container alternatives distributed from a
schema's disjunctions counted against `schema_alternatives` (docs/jsonschema.md,
"Bounds": SchemaStore's mongodb-atlas-search-index-definition, 17 `dependencies` on one
property, failed after 10 s; now it fails fast)."""
import pytest

from refimpl import Grammar
from refimpl.errors import LimitError
from refimpl.frontends.jsonschema.compilation import Atom
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.frontends.jsonschema.nonterminals import ContainerKey
from refimpl.limits import Limits
from refimpl.recognition.recognizer import Recognizer


def test_one_nonterminal_per_conjunction_made_once():
    c = compiler_for({"properties": {"a": {"type": "integer"}, "b": {}}})
    s, nts = c.comp.subschemas, c.nonterminals
    root = Atom(s.root, False, ())
    a = Atom(s.child(s.root, s.value(s.root)["properties"]["a"]), False, ())
    b = Atom(s.child(s.root, s.value(s.root)["properties"]["b"]), False, ())
    nt = nts.value((root, a))
    assert nts.value((root, a, root)) == nt and nts.value((root, b, a)) == nt  # duplicates, `{}` left out
    assert nts.value((b,)) == nts.value(()) != nt
    assert nts.value_atoms[nt] == (root, a) and [job.nt for job in nts.todo] == [nt, nts.value(())]
    assert c.comp.ir.names[nt] == "json/properties/a" and c.comp.ir.names[nts.value(())] == "json(any)"
    assert nts.value((Atom(a.node, True, ()),)) != nts.value((a,))


def test_container_nonterminals_and_the_alternatives_they_count():
    c = compiler_for({"anyOf": [{}, {}]}, limits=Limits(schema_alternatives=2))
    nts, root = c.nonterminals, (Atom(c.comp.subschemas.root, False, ()),)
    key = ContainerKey("object", root, frozenset())
    assert not nts.made(key) and nts.container(key) == nts.container(key) and nts.made(key)
    assert nts.alternatives == 0
    gid = (c.comp.subschemas.root, "anyOf", None)
    for i in range(2):
        nts.container(ContainerKey("object", root, frozenset({(gid, i)})))
    assert nts.alternatives == 2 and c.comp.ir.names[nts.todo[-1].nt] == "json{}#2"
    with pytest.raises(LimitError) as e:
        nts.container(ContainerKey("array", root, frozenset({(gid, 0)})))
    assert e.value.limit == "schema_alternatives" and "disjunctions of /" in str(e.value)


def dependent(n):
    """n properties, each of which, when present, restricts the shared `type` differently
    (so no two alternatives are disjoint: `type` is optional)."""
    props = {"type": {"type": "string"}}
    props.update({"p%d" % i: {"type": "integer"} for i in range(n)})
    deps = {"p%d" % i: {"properties": {"type": {"enum": ["t%d" % i, "t%d" % (i + 1)]}}} for i in range(n)}
    return {"type": "object", "properties": props, "dependencies": deps, "additionalProperties": False}


def test_a_product_of_dependencies_fails_naming_the_limit():
    with pytest.raises(LimitError) as e:
        Grammar.from_json_schema(dependent(12))  # 2^12 alternatives, default limits
    assert e.value.limit == "schema_alternatives" and "/" in str(e.value)
    with pytest.raises(LimitError) as e:
        Grammar.from_json_schema(dependent(5), limits=Limits(schema_alternatives=20))
    assert e.value.limit == "schema_alternatives"


def test_below_the_limit_the_product_is_exact():
    g = Grammar.from_json_schema(dependent(4))
    ok = [b'{"type": "t1", "p0": 1, "p1": 2}', b'{"p0": 1, "p3": 2}', b'{"type": "t9"}']
    bad = [b'{"type": "t2", "p0": 1}', b'{"type": "t1", "p0": 1, "p2": 2}']
    for text in ok + bad:
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text) and r.is_accepting()) == (text in ok), text
