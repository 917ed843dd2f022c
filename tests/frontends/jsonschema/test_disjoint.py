"""Disjoint alternatives (refimpl/frontends/jsonschema/disjoint.py): an exact `oneOf`, a
`not` or an `else` whose negated subschema the plain subschemas beside it exclude is
left out instead of being distributed — the fix for SchemaStore's discriminated
`oneOf`s (avro-avsc, function: 7,716 and thousands of leaf objects before, minutes).

* Work counts (not times): the leaf objects a discriminated oneOf of k kinds makes grow
  linearly in k, also when the discriminator is required only by a sibling `allOf`.
* Soundness: random discriminated schemas (kinds that may share a discriminator, so
  some pairs overlap and keep their negation) against the `jsonschema` package.
"""
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar
from refimpl.frontends.jsonschema import json_schema_to_ir
from refimpl.frontends.jsonschema.disjoint import _utf8
from refimpl.recognition.recognizer import Recognizer
from refimpl.regex import ExprSet, compile_pattern
from refimpl.regex.derivative import derivative
from tests.support.budget import examples

jsonschema = pytest.importorskip("jsonschema", reason="the jsonschema package is a test dependency")


def accepts(grammar, text):
    r = Recognizer(grammar.compiled)
    return r.consume_bytes(text.encode("utf-8")) and r.is_accepting()


def objects_made(schema):
    """The object nonterminals the compiler made: distributed and leaf conjunctions (not
    the layout's own states `@i`, members `:*` and repetitions `,*`)."""
    ir = json_schema_to_ir(schema).ir
    return sum(1 for name in ir.names if name.startswith("json{}") and not any(c in name for c in "@:,"))


def kind(tag, fields, key="kind", required=True):
    """An object kind: a discriminator `key` with const `tag`, and optional fields."""
    props = {key: {"const": tag}}
    props.update({f: {"type": "integer"} for f in fields})
    return {"type": "object", "properties": props, "required": [key] if required else []}


def test_discriminated_one_of_is_linear():
    fields = ["a", "b", "c", "d", "e"]
    counts = []
    for k in (2, 4, 6):
        schema = {"oneOf": [kind("k%d" % i, [f + str(i) for f in fields]) for i in range(k)]}
        counts.append(objects_made(schema))
    # one object per kind, the distributed one and `any` (a value of any field): without
    # the disjointness proof, each kind carried k-1 negations of 7 alternatives each
    assert counts == [4, 6, 8], counts
    assert counts[2] - counts[1] == counts[1] - counts[0], counts


def test_discriminator_required_by_a_sibling_all_of():
    """function.json's shape: the kinds only name `type`; a sibling allOf requires it,
    and a catch-all kind excludes every named type with `not: {enum}`."""
    tags = ["t%d" % i for i in range(8)]
    kinds = [kind(t, ["x%d" % i, "y%d" % i], key="type", required=False) for i, t in enumerate(tags)]
    catch_all = {"properties": {"type": {"not": {"enum": tags}}}}
    schema = {"type": "array", "items": {"oneOf": [catch_all, {"oneOf": kinds}],
                                         "allOf": [{"properties": {"type": {"type": "string"}}, "required": ["type"]}]}}
    assert objects_made(schema) <= 40
    g = Grammar.from_json_schema(schema)
    assert accepts(g, '[{"type": "t3", "x3": 1}, {"type": "other", "x3": "s"}]')
    assert not accepts(g, '[{"type": "t3", "x3": "s"}]')
    assert not accepts(g, '[{"x3": 1}]')


def test_not_and_else_excluded_by_their_context():
    """`not` of a kind the object's own discriminator excludes adds nothing."""
    a, b = kind("a", ["n"]), kind("b", ["n"])
    schema = {"allOf": [a, {"not": b}, {"if": b, "then": {"required": ["zz"]}}]}
    g = Grammar.from_json_schema(schema)
    assert accepts(g, '{"kind": "a", "n": 1}') and not accepts(g, '{"kind": "b", "n": 1}')
    assert objects_made(schema) <= 3


# ---------------------------------------------------------------- soundness, randomised

TAGS = ["p", "q", "r"]
FIELDS = ["m", "n"]
field_schema = st.sampled_from([{"type": "integer"}, {"type": "string"}, {"enum": [1, "s"]}, {"minimum": 2}])


@st.composite
def kinds(draw):
    tag = draw(st.one_of(st.sampled_from(TAGS).map(lambda t: {"const": t}),
                         st.lists(st.sampled_from(TAGS), min_size=1, max_size=2, unique=True).map(lambda ts: {"enum": ts}),
                         st.just({"not": {"enum": TAGS[:2]}})))
    props = {"kind": tag}
    props.update(draw(st.dictionaries(st.sampled_from(FIELDS), field_schema, max_size=2)))
    out = {"type": "object", "properties": props}
    req = draw(st.lists(st.sampled_from(["kind"] + FIELDS), unique=True, max_size=2))
    if req:
        out["required"] = req
    if draw(st.booleans()):
        out["additionalProperties"] = False
    return out


@st.composite
def discriminated(draw):
    ks = draw(st.lists(kinds(), min_size=2, max_size=4))
    shape = draw(st.sampled_from(["oneOf", "not", "if", "nested"]))
    if shape == "oneOf":
        schema = {"oneOf": ks}
    elif shape == "not":
        schema = {"allOf": [ks[0], {"not": ks[1]}]}
    elif shape == "if":
        schema = {"allOf": [ks[0]], "if": ks[1], "then": {"required": ["m"]}, "else": ks[-1]}
    else:
        schema = {"oneOf": [ks[0], {"oneOf": ks[1:]}]}
    if draw(st.booleans()):
        schema = {"allOf": [schema, {"required": ["kind"]}]}
    return schema


instances = st.dictionaries(st.sampled_from(["kind"] + FIELDS + ["z"]),
                            st.sampled_from(TAGS + [1, 3, "s", None]), max_size=3)


def orders(value):
    return [dict(zip(keys, (value[k] for k in keys))) for keys in itertools.permutations(value)]


@settings(max_examples=examples(200))
@given(discriminated(), st.lists(instances, min_size=4, max_size=8))
def test_random_discriminated_schemas_agree_with_jsonschema(schema, values):
    try:
        g = Grammar.from_json_schema(schema)
    except Exception as e:  # a SchemaError says why (unsatisfiable, or not exact)
        assert type(e).__name__ == "SchemaError", e
        return
    check = jsonschema.Draft202012Validator(schema)
    for x in values:
        texts = [json.dumps(t) for t in orders(x)]
        if check.is_valid(x):
            assert any(accepts(g, t) for t in texts), ("valid instance rejected in every order", schema, x)
        else:
            assert not any(accepts(g, t) for t in texts), ("invalid instance accepted", schema, x)


# ---------------------------------------------------------------- the witness shortcut's premise

@settings(max_examples=examples(300))
@given(st.binary(max_size=8) | st.text(max_size=4).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_any_string_is_exactly_valid_utf8(data):
    """disjoint._matches stops at `any_string` and decides the rest as "is it valid
    UTF-8": the regex (?s:.)* over bytes and Python's strict decoder agree."""
    es = ExprSet()
    x = compile_pattern(es, "(?s:.)*")
    for b in data:
        x = derivative(es, x, b)
    assert es.nullable(x) == _utf8(data)
