"""The switch (refimpl/frontends/jsonschema/switch.py): passing over the `if`/`then` kids of
an allOf that a context makes vacuous, or that cannot change a conjunction that is to be
distributed, changes no schema's language."""
import itertools
import json

import pytest
from tests.support.budget import examples
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from refimpl import Grammar
from refimpl.errors import MaskrefError
from refimpl.frontends.jsonschema.switch import Switch
from refimpl.limits import Limits
from refimpl.recognition.recognizer import Recognizer

NAMES = ("a", "b", "c")
WORDS = ("x", "y", "z")

# a and b are discriminators (the root may fix their words, a case names them), c a value
keys = st.sampled_from(("a", "b"))
words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2, unique=True)
discriminator = words.map(lambda ws: {"const": ws[0]} if len(ws) == 1 else {"enum": ws})
constraint = st.one_of(
    st.just({"properties": {"c": {"type": "integer"}}}),
    st.just({"properties": {"c": {"type": "string"}}}),
    st.builds(lambda n: {"required": [n]}, st.sampled_from(NAMES)))
case = st.builds(lambda n, d, then: {"if": {"properties": {n: d}}, "then": then}, keys, discriminator, constraint)
not_a_case = st.one_of(
    constraint,
    st.builds(lambda n, d, t, e: {"if": {"properties": {n: d}}, "then": t, "else": e}, keys, discriminator,
              constraint, constraint),
    st.builds(lambda n: {"if": {"properties": {n: {"enum": ["x", 1]}}}, "then": {"required": ["c"]}}, keys))
flat_kids = st.one_of(case, case, not_a_case)
kids = st.one_of(flat_kids, flat_kids, st.recursive(
    flat_kids,
    lambda inner: st.one_of(st.lists(inner, min_size=1, max_size=4).map(lambda ks: {"allOf": ks}),
                            st.lists(inner, min_size=2, max_size=3).map(lambda ks: {"anyOf": ks}),
                            inner.map(lambda k: {"unevaluatedProperties": False,
                                                 "properties": {"a": True, "b": True}, "allOf": [k]})),
    max_leaves=4))
schemas = st.builds(lambda ks, req, props: {"type": "object", "properties": props, "required": req, "allOf": ks},
                    st.lists(kids, min_size=1, max_size=5), st.lists(keys, unique=True, max_size=1),
                    st.dictionaries(keys, discriminator, min_size=1))

#: objects with keys in name order, values among the words and a number
INSTANCES = [json.dumps(dict(zip(keys, values))).encode()
             for k in range(len(NAMES) + 1) for keys in itertools.combinations(NAMES, k)
             for values in itertools.product(WORDS + (1,), repeat=k)]


def compiled(schema, limit):
    """The grammar, or the name of the error (which unsatisfiable disjunction is found
    first may differ: its pointer is not compared)."""
    try:
        return Grammar.from_json_schema(schema, limits=Limits(schema_alternatives=limit))
    except MaskrefError as e:
        return type(e).__name__


def accepted(g):
    if isinstance(g, str):
        return g
    out = []
    for text in INSTANCES:
        r = Recognizer(g.compiled)
        out.append(r.consume_bytes(text) and r.is_accepting())
    return out


def switch_off(m):
    m.setattr(Switch, "next_live", lambda self, i, live_words: i)
    m.setattr(Switch, "next_other", lambda self, i: i)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas)
def test_the_switch_changes_no_language(schema):
    """Every kid examined (the switch off) or the switch passing over the kids it may:
    the same instances are accepted, or the same error is raised."""
    on = accepted(compiled(schema, 200))
    with pytest.MonkeyPatch.context() as m:
        switch_off(m)
        off = accepted(compiled(schema, 1000))  # the switch makes fewer alternatives
    assume(off != "LimitError")
    assert on == off


def test_a_known_kind_passes_over_the_other_cases():
    """A conjunction whose kind is known examines no other kid; one that is to be
    distributed examines only its first group: 12 kinds, 25 disjunctions examined (one per
    conjunction that has one), not 12 * 13 / 2 + 12."""
    from refimpl.frontends.jsonschema.containers import Containers

    schema = {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"],
              "allOf": [{"if": {"properties": {"kind": {"const": "k%d" % i}}},
                         "then": {"properties": {"v": {"const": i}}}} for i in range(12)]}
    examined = []
    with pytest.MonkeyPatch.context() as m:
        examine = Containers._flatten_disjunction
        m.setattr(Containers, "_flatten_disjunction", lambda self, *a: examined.append(a[1]) or examine(self, *a))
        g = Grammar.from_json_schema(schema)
    assert len(examined) <= 2 * 12 + 1, len(examined)
    for text, ok in ((b'{"kind": "k3", "v": 3}', True), (b'{"kind": "k3", "v": 4}', False), (b'{"kind": "q", "v": 4}', True)):
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text) and r.is_accepting()) == ok, text


def test_a_case_on_a_property_not_required_is_examined():
    """Its words known but `kind` not required: an object without `kind` satisfies the
    `if`, so the `then` applies — the case is not vacuous (kept by this test: passing
    over it accepted `{}`)."""
    schema = {"type": "object", "properties": {"kind": {"const": "z"}},
              "allOf": [{"if": {"properties": {"kind": {"const": "x"}}}, "then": {"required": ["c"]}}]}
    g = Grammar.from_json_schema(schema)
    for text, ok in ((b'{}', False), (b'{"c": 1}', True), (b'{"kind": "z"}', True)):
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text) and r.is_accepting()) == ok, text


@pytest.mark.parametrize("kid, case", [
    ({"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}}, ("k", {b"a"})),
    ({"if": {"properties": {"k": {"enum": ["a", "b"]}}}, "description": "annotations are no constraint"}, ("k", {b"a", b"b"})),
    ({"if": {"properties": {"k": {"const": "a"}}}, "then": {}, "else": {"required": ["x"]}}, None),
    ({"if": {"properties": {"k": {"const": "a"}}}, "then": {}, "required": ["x"]}, None),
    ({"if": {"properties": {"k": {"enum": ["a", 1]}}}, "then": {}}, None),
    ({"if": {"properties": {"k": {"type": "string"}}}, "then": {}}, None),
])
def test_what_is_a_case(kid, case):
    """A case: `if` and `then` only (and annotations), the `if` giving a property a const or
    an enum of strings only; anything else is examined as before."""
    from refimpl.frontends.jsonschema import json_schema_to_ir

    schema = {"type": "object", "allOf": [kid]}
    seen = {}
    with pytest.MonkeyPatch.context() as m:
        init = Switch.__init__

        def spy(self, kids, cases):
            seen["cases"] = cases
            init(self, kids, cases)

        m.setattr(Switch, "__init__", spy)
        try:
            json_schema_to_ir(schema)
        except MaskrefError:
            pass
    got = seen["cases"][0]
    assert (None if got is None else (got[0], set(got[1]))) == case
