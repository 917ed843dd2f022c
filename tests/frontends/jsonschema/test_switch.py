"""The switch (refimpl/frontends/jsonschema/switch.py): passing over the `if`/`then` kids of
an allOf that a context makes vacuous, or that cannot change a conjunction that is to be
distributed, changes no schema's language; and a chain of discriminated `if`/`then`
(SchemaStore's utcm-monitor, cloudify) beyond `schema_alternatives` fails with work
bounded by counters, not by time (docs/jsonschema.md, "Bounds")."""
import itertools
import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from refimpl import Grammar
from refimpl.errors import LimitError, MaskrefError
from refimpl.frontends.jsonschema.containers import Containers
from refimpl.frontends.jsonschema.disjoint import Disjointness
from refimpl.frontends.jsonschema.switch import Switch
from refimpl.limits import Limits
from refimpl.recognition.recognizer import Recognizer
from tests.support.budget import examples

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


# ------------------------------------------ a chain of discriminated if/then: fails fast

def switch(n, required=True):
    """SchemaStore's utcm-monitor and cloudify shape: an object whose `kind` (required)
    selects, by n `if`/`then` pairs, the schema of its `body`. Distributing the ifs is
    a chain: kind k_i (its `then` applies, every other `if` is excluded), or kind is
    not k_i and the rest is distributed again — 2n alternatives."""
    return {"type": "object",
            "properties": {"kind": {"type": "string", "pattern": "^k_[0-9]+$"}, "body": {"type": "object"}},
            "required": ["kind", "body"] if required else [],
            "allOf": [{"if": {"properties": {"kind": {"const": "k_%d" % i}}},
                       "then": {"properties": {"body": {"properties": {"f%d" % i: {"type": "integer"}}}}}}
                      for i in range(n)]}


class Work:
    """Counts, by wrapping the compiler's methods: the disjunctions the flattening examines
    and the word-against-regex matches the disjointness proofs read."""

    def __init__(self, monkeypatch):
        self.disjunctions = self.matches = 0
        examine, match = Containers._flatten_disjunction, Disjointness._matches

        def counted_examine(*args, **kwargs):
            self.disjunctions += 1
            return examine(*args, **kwargs)

        def counted_match(*args, **kwargs):
            self.matches += 1
            return match(*args, **kwargs)

        monkeypatch.setattr(Containers, "_flatten_disjunction", counted_examine)
        monkeypatch.setattr(Disjointness, "_matches", counted_match)


def test_a_switch_beyond_the_limit_fails_with_work_independent_of_its_size(monkeypatch):
    """2n alternatives > the limit of 100: LimitError naming schema_alternatives. The work
    before it is bounded by counters, not by time, and does not grow with n: each
    distributed conjunction goes on from where its parent met the disjunction it decides
    (Resume), and examines one `if` of the switch, its first group — a conjunction that
    knows its kind passes over the other kids (the switch's index, switch.py), one that
    has a group to distribute passes over every kid that is a case. The proofs read each
    new discriminator word through the negations gathered before it: quadratic in the
    conjunctions made (so bounded by the limit), not in n. (utcm-monitor's 270 ifs: 9.7 s
    to fail when each proof read all k negations, 1.6-1.9 s when each conjunction
    examined the n - k ifs after it, 0.7 s now.)"""
    limit = 100
    depth = limit // 2 + 1  # conjunctions flattened before the limit: 2 alternatives each
    counts = []
    for n in (60, 120, 240):
        with pytest.MonkeyPatch.context() as m:
            work = Work(m)
            with pytest.raises(LimitError) as e:
                Grammar.from_json_schema(switch(n), limits=Limits(schema_alternatives=limit))
        assert e.value.limit == "schema_alternatives"
        assert "/allOf" in str(e.value)
        counts.append((work.disjunctions, work.matches))
    assert counts[0] == counts[1] == counts[2], counts
    disjunctions, matches = counts[0]
    assert disjunctions <= 2 * depth, counts
    # each conjunction: its new word through the k negations before it, and the
    # witnesses (at most 32) read through its kind's string when it is laid out
    assert matches <= depth * depth // 2 + 32 * depth, counts


def test_the_switch_below_the_limit_is_exact():
    g = Grammar.from_json_schema(switch(12))
    ok = [b'{"kind": "k_3", "body": {"f3": 1, "f4": "x"}}', b'{"kind": "k_99", "body": {"f3": "x"}}',
          b'{"kind": "k_11", "body": {}}']
    bad = [b'{"kind": "k_3", "body": {"f3": "x"}}', b'{"kind": "k_11", "body": {"f11": 1.5}}',
           b'{"kind": "x", "body": {}}', b'{"body": {}}']
    for text in ok + bad:
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text) and r.is_accepting()) == (text in ok), text


def test_an_optional_discriminator_is_a_product_and_fails_fast(monkeypatch):
    """Without `required`, kind k_i does not exclude the other ifs (kind may be absent):
    the distribution is a product, and the limit stops it after about `limit`
    conjunctions."""
    work = Work(monkeypatch)
    with pytest.raises(LimitError) as e:
        Grammar.from_json_schema(switch(40, required=False), limits=Limits(schema_alternatives=100))
    assert e.value.limit == "schema_alternatives"
    assert work.disjunctions <= 60 * 40, work.disjunctions
