"""The flattening (refimpl/frontends/jsonschema/containers.py): a conjunction of
subschemas expanded for one container type (allOf and $ref inline, depth-first in key
order), its undecided disjunctions found; a distributed conjunction resumed from where
its parent's walk met the disjunction it decides, with the same result."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import MaskrefError
from refimpl.frontends.jsonschema import json_schema_to_ir
from refimpl.frontends.jsonschema.compilation import Atom, Reason
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.frontends.jsonschema.containers import Containers
from refimpl.limits import Limits
from tests.support.budget import examples


def flat(schema, T="object", choices=frozenset()):
    c = compiler_for(schema)
    s = c.comp.subschemas
    return c, s, c.containers.flatten(T, (Atom(s.root, False, ()),), choices)


def test_depth_first_in_key_order():
    schema = {"$defs": {"b": {"properties": {"b": {}}, "required": ["b"]}}, "properties": {"a": {}},
              "allOf": [{"$ref": "#/$defs/b"}, {"properties": {"c": {}}, "required": ["a"]}]}
    c, s, f = flat(schema)
    assert (f.props, f.reqs, f.groups) == (["a", "b", "c"], ["b", "a"], [])
    assert [s.pointer(a.node) for a in f.atoms] == ["", "/allOf/0", "/$defs/b", "/allOf/1"]
    _, _, arrays = flat(schema, "array")
    assert (arrays.props, arrays.reqs) == ([], [])  # object keywords say nothing of arrays


def test_disjunctions_that_matter_are_groups_to_distribute():
    schema = {"anyOf": [{"required": ["x"]}, {"required": ["y"]}], "oneOf": [{"type": "array"}, {"required": ["z"]}],
              "if": {"type": "array"}, "then": {"minItems": 1}}
    c, s, f = flat(schema)
    # oneOf: only its second kid allows objects; if: its `if` allows none, so `else` (none) holds
    assert [g.gid.keyword for g in f.groups] == ["anyOf"]
    assert [s.pointer(a.node) for a in f.atoms] == ["", "/oneOf/1"]
    assert f.resume is not None and f.resume.group is f.groups[0]
    chosen = frozenset({(f.groups[0].gid, 1)})
    _, _, g = flat(schema, choices=chosen)
    assert g.groups == [] and [s.pointer(a.node) for a in g.atoms] == ["", "/anyOf/1", "/oneOf/1"]
    _, _, anything = flat({"anyOf": [{"required": ["x"]}, {}]})
    assert anything.groups == []  # one alternative allows every object: nothing to distribute


def test_what_allows_no_container_is_a_reason():
    for schema, message in (({"type": "string"}, "type string excludes object"), (False, "the schema is false"),
                            ({"not": {}}, "'not' excludes every object"),
                            ({"anyOf": [{"type": "null"}, {"type": "array"}]}, "no alternative of anyOf is an object"),
                            ({"enum": [1, "a"]}, "no value of enum is an object")):
        _, _, f = flat(schema)
        assert isinstance(f, Reason) and f.message == message, schema


def test_a_negation_becomes_its_negated_schema_unless_the_context_excludes_it():
    c, s, f = flat({"required": ["a"], "not": {"required": ["b"]}})
    # not required b: the negation, whose one alternative is then flattened in place
    assert [s.value(a.node) for a in f.atoms][1:] == [{"type": "object", "anyOf": [{"properties": {"b": False}}]},
                                                      {"properties": {"b": False}}]
    c, s, f = flat({"properties": {"k": {"const": "a"}}, "required": ["k"], "not": {"properties": {"k": {"const": "b"}}}})
    assert len(f.atoms) == 1  # k is "a": the negated k = "b" holds already (disjoint.py)


def flattened_without_resuming(monkeypatch):
    flatten = Containers.flatten
    monkeypatch.setattr(Containers, "flatten", lambda self, T, atoms, choices, start=None: flatten(self, T, atoms, choices))


names = st.sampled_from(["a", "b", "c"])
leaf = st.one_of(
    st.builds(lambda n, v: {"properties": {n: {"const": v}}}, names, st.sampled_from([1, 2, "x"])),
    st.builds(lambda n: {"required": [n]}, names),
    st.builds(lambda n: {"properties": {n: {"type": "integer"}}}, names),
    st.builds(lambda n, m: {"dependentRequired": {n: [m]}}, names, names),
    st.builds(lambda n: {"properties": {n: False}}, names))


def disjunctions(inner):
    return st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: {"anyOf": xs}),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: {"oneOf": xs}),
        st.tuples(inner, inner, inner).map(lambda t: {"if": t[0], "then": t[1], "else": t[2]}),
        st.tuples(inner, inner).map(lambda t: {"if": t[0], "then": t[1]}),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: {"allOf": xs}),
        st.dictionaries(names, inner, min_size=1, max_size=2).map(lambda d: {"dependentSchemas": d}),
        inner.map(lambda x: {"not": x}),
        inner.map(lambda x: {"unevaluatedProperties": False, "properties": {"c": True}, "allOf": [x]}))


schemas = st.recursive(leaf, disjunctions, max_leaves=8).map(lambda s: {"type": "object", "allOf": [s]})


def ir_text(schema):
    try:
        return json_schema_to_ir(schema, limits=Limits(schema_alternatives=200)).ir.to_text()
    except MaskrefError as e:
        return "%s: %s" % (type(e).__name__, e)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(schemas, min_size=1, max_size=6))
def test_a_resumed_flattening_makes_the_same_grammar(batch):
    """A distributed conjunction goes on from where its parent met the disjunction it
    decides (containers.py, Resume); flattening it from the top gives the same IR, text
    for text, on random nests of anyOf/oneOf/if/dependentSchemas/not."""
    resumed = [ir_text(s) for s in batch]
    with pytest.MonkeyPatch.context() as m:
        flattened_without_resuming(m)
        again = [ir_text(s) for s in batch]
    assert resumed == again


def test_a_disjunction_met_twice_is_resumed_only_from_its_first_meeting():
    """The same anyOf met outside and inside an unevaluatedProperties scope: outside,
    its `{}` alternative makes it nothing; inside, it is distributed. A conjunction
    distributed from it meets it first outside — where its parent's walk did not stop —
    so it is flattened from the top (the guard `met`), and the IR is the same."""
    d = {"anyOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {}]}
    schema = {"type": "object", "$defs": {"D": d},
              "allOf": [{"$ref": "#/$defs/D"},
                        {"unevaluatedProperties": False, "properties": {"b": True}, "allOf": [{"$ref": "#/$defs/D"}]}]}
    resumed = ir_text(schema)
    with pytest.MonkeyPatch.context() as m:
        flattened_without_resuming(m)
        assert ir_text(schema) == resumed
    assert "json{}#2" in resumed  # it was distributed
