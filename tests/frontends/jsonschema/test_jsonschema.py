"""The JSON schema frontend as a whole (the package refimpl/frontends/jsonschema/; each
module's own tests are in test_<module>.py beside this file).

* Examples: keywords against instances, the error messages and JSON pointers of bad
  schemas, llguidance's compile cases, 10,000-deep schemas under a low recursion limit,
  a 100,000-value enum.
* Property: random schemas and random instances; the `jsonschema` package decides
  validity. An invalid instance is always rejected (in any layout); a valid one is
  accepted compactly and with whitespace, its object members in some order (maskref, as
  llguidance, fixes the order of properties).
* Masks along valid instances equal the naive definition with a small vocabulary, and
  llguidance's with the GPT-2 vocabulary when llguidance is installed.
"""
import itertools
import json
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Limits, Matcher, Vocabulary, naive_mask
from refimpl.errors import GrammarError, SchemaError
from refimpl.frontends.jsonschema import json_schema_to_ir
from refimpl.recognition.recognizer import Recognizer
from tests.support.budget import examples
from tests.support.paths import DATA
from tests.support.shallow import call_with_shallow_stack


def accepts(grammar, text) -> bool:
    r = Recognizer(grammar.compiled)
    data = text.encode("utf-8") if isinstance(text, str) else text
    return r.consume_bytes(data) and r.is_accepting()


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)



# ================================================================================ examples


@pytest.mark.parametrize("schema, good, bad", [
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]},
     ['{"a":1}', '{"a":1,"b":"x"}', '{"a":1,"c":[1,{}]}', '{ "a" : 1 ,\n "b" : "" }'],
     ['{}', '{"b":"x","a":1}', '{"a":"x"}', ' {"a":1}', '{"a":1} ', '{"a":1,"a":2}']),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
     ["[1]", "[1,2,3]", "[ 1 , -0 ]"], ["[]", "[1,2,3,4]", "[1.5]", "[1.0]"]),
    ({"anyOf": [{"type": "string", "maxLength": 2}, {"type": "number", "minimum": 5}]},
     ['"ab"', "5", "6.5", "5.000"], ['"abc"', "4", "-1", "4.99"]),
    ({"not": {"type": "integer"}}, ['"x"', "1.5", "[]", "null"], ["1", "-3", "1e3", "1.0"]),
    ({"oneOf": [{"type": "integer"}, {"minimum": 2}]}, ["1", "2.5", '"s"'], ["2", "3"]),
    ({"$defs": {"t": {"type": "object", "properties": {"c": {"$ref": "#/$defs/t"}}, "additionalProperties": False}},
      "$ref": "#/$defs/t"}, ["{}", '{"c":{"c":{}}}'], ['{"d":1}', '{"c":1}']),
    ({"type": "array", "contains": {"const": 1}, "maxContains": 2}, ["[1]", "[1,2,1]", "[2,1,3]"], ["[]", "[1,1,1]", "[2]"]),
    ({"type": "string", "format": "date"}, ['"2020-02-29"', '"2000-02-29"'], ['"2021-02-29"', '"1900-02-29"']),
    ({"enum": [[1, 2], {"a": 1}, "x", None]}, ["[1,2]", '{"a":1}', '"x"', "null"], ["[1]", '{"a":2}', '"y"', "[2,1]"]),
    ({"type": "object", "minProperties": 2, "maxProperties": 3, "properties": {"a": {}, "b": {}}},
     ['{"a":1,"b":2}', '{"a":1,"x":1}', '{"x":1,"y":2,"z":3}'], ['{"a":1}', '{"a":1,"b":2,"x":3,"y":4}']),
    ({"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}, "else": {"required": ["c"]}},
     ['{"a":1,"b":2}', '{"a":2,"c":1}', "1"], ['{"a":1}', '{"a":2}']),
    ({"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "not": {"const": "no"}},
     ['"ab"', '"yes"'], ['"a"', '"no"', '"AB"']),
    ({"type": "string", "enum": ["a\"b", "tab\t", "\u00e9"]}, ['"a\\"b"', '"tab\\t"', '"tab\\u0009"', '"\u00e9"'],
     ['"a"b"', '"tab\t"', '"\\u00e9"']),
    ({"type": "integer", "multipleOf": 3, "minimum": -7, "exclusiveMaximum": 9}, ["-6", "0", "6"], ["9", "-9", "4", "3.0"]),
    ({"type": "number", "multipleOf": 0.5}, ["1.5", "-2", "2.0"], ["1.25", "1e1", "2.50"]),
    ({"type": "number", "multipleOf": 0.25}, ["0.5", "0.75", "3"], ["0.500", "0.1"]),
    ({"type": "number", "multipleOf": 3}, ["-3", "0", "9"], ["3.0", "1"]),
    ({"properties": {"a": {"type": "string"}}, "patternProperties": {"^x": {"type": "integer"}},
      "additionalProperties": False, "propertyNames": {"maxLength": 3}},
     ['{"a":"s","x1":1}', '{"xyz":2}'], ['{"x1":"s"}', '{"b":1}', '{"xyzw":1}']),
    ({"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": False}, ['["a"]', "[]"], ['["a",1]']),
    ({"dependentRequired": {"b": ["a"]}}, ['{"a":1,"b":2}', '{"a":1}', "{}"], ['{"b":2}']),
])
def test_examples(schema, good, bad):
    g = Grammar.from_json_schema(schema)
    for text in good:
        assert accepts(g, text), (schema, text)
    for text in bad:
        assert not accepts(g, text), (schema, text)


@pytest.mark.parametrize("schema, message, pointer", [
    ({"$ref": "#/$defs/missing"}, "unknown $ref '#/$defs/missing'", "/$ref"),
    ({"$ref": "http://example.com/other.json"}, "remote schemas are not fetched", "/$ref"),
    ({"items": {"$ref": "#nope"}}, "no anchor 'nope'", "/items/$ref"),
    ({"type": "strng"}, "unknown type 'strng'", "/type"),
    ({"properties": {"a": 5}}, "schema must be an object or boolean", "/properties/a"),
    ({"minimum": "3"}, "minimum must be a number", "/minimum"),
    ({"maxItems": -1}, "maxItems must be a non-negative integer", "/maxItems"),
    ({"required": "a"}, "required must be an array of strings", "/required"),
    ({"type": "array", "uniqueItems": "yes"}, 'uniqueItems must be a boolean, got "yes"', "/uniqueItems"),
    ({"not": {"uniqueItems": 1}}, "uniqueItems must be a boolean, got 1", "/not/uniqueItems"),
    ({"type": "string", "pattern": "(?<=a)b"}, "pattern cannot be enforced exactly", "/pattern"),
    ({"type": "string", "format": "idn-hostname"}, "format cannot be enforced exactly", "/format"),
    ({"anyOf": []}, "anyOf must be a non-empty array", "/anyOf"),
    ({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "circular in-place references", "/$defs/a"),
    ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True}, "uniqueItems cannot be enforced", "/uniqueItems"),
    ({"type": "integer", "multipleOf": 0.123456789}, "multipleOf cannot be enforced exactly", "/multipleOf"),
    # a lone surrogate (JSON can write "\ud800") is in no UTF-8 text: an error, not a crash
    ({"const": "\ud800"}, 'the string "\\ud800" holds a lone surrogate', "/const"),
    ({"enum": ["a", {"b": ["\udc00"]}]}, "holds a lone surrogate", "/enum"),
    ({"properties": {"\ud800": {}}}, "holds a lone surrogate", "/properties"),
    ({"allOf": [{"required": ["\ud800"]}]}, "holds a lone surrogate", "/allOf/0/required"),
])
def test_bad_schemas(schema, message, pointer):
    with pytest.raises(SchemaError) as e:
        Grammar.from_json_schema(schema)
    assert message in str(e.value)
    assert e.value.pointer == pointer


#: llguidance errors that are its own limitations: maskref compiles these schemas exactly
LLGUIDANCE_LIMITATIONS = ("are not disjoint", "Unimplemented keys", "min/maxProperties only supported")


def test_llguidance_compile_cases():
    """llguidance's compile cases with %json: what compiles, and the error texts."""
    data = json.loads((DATA / "llguidance_lark_cases.json").read_text())
    checked = 0
    for case in data["compile_cases"]:
        if "%json" not in case["grammar"]:
            continue
        checked += 1
        expected = case.get("error_contains", "")
        if case["should_compile"] or any(x in case["llg_error"] for x in LLGUIDANCE_LIMITATIONS):
            Grammar.from_lark(case["grammar"])  # compiles (exactly) in maskref
            continue
        with pytest.raises(GrammarError) as e:
            Grammar.from_lark(case["grammar"])
        if expected == "key must be a string":
            continue  # malformed JSON after %json: the Lark reader's own message
        assert expected in str(e.value), (case["grammar"], str(e.value))
    assert checked >= 15


def test_what_llguidance_rejects_compiles_exactly():
    """Overlapping patternProperties, if/then/else, min/maxProperties with optional
    properties: errors in llguidance, exact grammars here."""
    g = Grammar.from_json_schema({"type": "object", "patternProperties": {"^fo": {"type": "integer"},
                                                                          "^foo": {"minimum": 3}}})
    assert accepts(g, '{"fo":1,"foo":3}') and not accepts(g, '{"foo":1}') and not accepts(g, '{"fox":"s"}')
    g = Grammar.from_json_schema({"type": "object", "properties": {"foo": {"type": "string"}}, "minProperties": 1})
    assert accepts(g, '{"foo":"x"}') and accepts(g, '{"x":1}') and not accepts(g, "{}")


# ===================================================================== deep and huge inputs

N = 10_000


def nested(key, depth, leaf):
    schema = leaf
    for _ in range(depth):
        schema = key(schema)
    return schema


DEEP = {
    "properties": lambda s: {"type": "object", "properties": {"a": s}, "required": ["a"]},
    "items": lambda s: {"type": "array", "items": s, "minItems": 1},
    "allOf": lambda s: {"allOf": [s]},
    "anyOf": lambda s: {"anyOf": [s, {"type": "null"}]},
    "not": lambda s: {"not": s},
    "oneOf": lambda s: {"oneOf": [s]},
}


#: deeper than the default Limits.schema_depth takes (test_values.py): here the compiler's
#: own loops are under test, without recursion
DEEP_LIMITS = Limits(schema_depth=3 * N)


class _Compiled:
    """A grammar compiled from the IR without simplification (simplify.py has its own
    deep-input tests; skipping it keeps these quick)."""

    def __init__(self, schema):
        self.compiled = json_schema_to_ir(schema, limits=DEEP_LIMITS).ir.compile()


def _deep_grammar(schema):
    return Grammar.from_json_schema(schema, limits=DEEP_LIMITS)


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_deep_schemas_do_not_recurse(kind):
    schema = nested(DEEP[kind], N, {"type": "integer"})
    make = _Compiled if kind in ("properties", "items") else _deep_grammar
    g = call_with_shallow_stack(make, schema)
    if kind == "properties":
        assert accepts(g, '{"a":' * 3 + "1" + "}" * 3) is False  # needs all 10,000 levels
    elif kind in ("allOf", "oneOf"):
        assert accepts(g, "7") and not accepts(g, '"x"')
    elif kind == "not":  # an even number of nots
        assert accepts(g, "7") and not accepts(g, "1.5")
    elif kind == "anyOf":
        assert accepts(g, "7") and accepts(g, "null")


def test_deep_schema_as_text_and_a_long_ref_chain():
    text = '{"type": "array", "items": ' * N + '{"type": "integer"}' + "}" * N
    g = call_with_shallow_stack(_Compiled, text)
    assert accepts(g, "[[[]]]") and not accepts(g, '[["x"]]')
    defs = {"d%d" % i: {"$ref": "#/$defs/d%d" % (i + 1)} for i in range(N)}
    defs["d%d" % N] = {"type": "string", "maxLength": 2}
    g = call_with_shallow_stack(_deep_grammar, {"$defs": defs, "$ref": "#/$defs/d0"})
    assert accepts(g, '"ab"') and not accepts(g, '"abc"')


def test_huge_enum_is_bounded_work():
    values = ["value-%d" % i for i in range(100_000)]
    t = time.perf_counter()
    g = Grammar.from_json_schema({"enum": values + list(range(1000))})
    assert accepts(g, '"value-99999"') and accepts(g, "999") and not accepts(g, '"value-100000"')
    assert time.perf_counter() - t < 60


# ======================================================== property: random schemas, jsonschema

jsonschema = pytest.importorskip("jsonschema", reason="the jsonschema package is a test dependency (pip install jsonschema)")

NAMES = ["a", "b", "c"]
STRINGS = ["", "a", "ab", "b", "xyz", "a1", "\u00e9", 'q"t', "back\\slash", "tab\t", "2020-02-29", "2021-02-29",
           "12345678-1234-1234-1234-123456789abc", "192.168.0.1", "256.1.1.1"]
NUMBERS = [-3, -1, 0, 1, 2, 3, 5, 7, 12, -2.5, 0.5, 1.25, 2.5]
SCALARS = [None, True, False] + NUMBERS + STRINGS
scalars = st.sampled_from(SCALARS)


def _key(v):
    return (type(v).__name__, compact(v))


leaf_schemas = st.one_of(
    st.just({}),
    st.sampled_from([{"type": "null"}, {"type": "boolean"}, {"type": ["string", "null"]}]),
    scalars.map(lambda v: {"const": v}),
    st.lists(scalars, min_size=1, max_size=4, unique_by=_key).map(lambda vs: {"enum": vs}),
    st.fixed_dictionaries({"type": st.just("integer")}, optional={
        "minimum": st.integers(-3, 3), "maximum": st.integers(0, 8), "exclusiveMinimum": st.integers(-4, 2),
        "multipleOf": st.sampled_from([2, 3, 5])}),
    st.fixed_dictionaries({"type": st.just("number")}, optional={
        "minimum": st.sampled_from([-2.5, 0, 1.5]), "maximum": st.sampled_from([0, 2.5, 3]),
        "exclusiveMaximum": st.sampled_from([1, 2.5])}),
    st.fixed_dictionaries({"type": st.just("string")}, optional={
        "minLength": st.integers(0, 3), "maxLength": st.integers(0, 4),
        "pattern": st.sampled_from(["^a", "b$", "[0-9]", "^[a-c]*$", "x|y", "^.{2}$"]),
        "format": st.sampled_from(["date", "uuid", "ipv4"])}),
)


values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(NAMES + ["z", "a1"]), inner, max_size=3)),
    max_leaves=6,
)


PATTERNS = ["^a", "b", "^c$", "[0-9]"]
KEYS = NAMES + ["z", "a1", "cb"]


def compound_schemas(children):
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("array")}, optional={
            "items": children, "prefixItems": st.lists(children, min_size=1, max_size=2),
            "minItems": st.integers(0, 2), "maxItems": st.integers(0, 3), "contains": children,
            "minContains": st.integers(0, 2), "maxContains": st.integers(1, 2),
            "unevaluatedItems": st.one_of(st.booleans(), children), "uniqueItems": st.just(False)}),
        st.fixed_dictionaries({"type": st.just("object")}, optional={
            "properties": st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
            "required": st.lists(st.sampled_from(NAMES), unique=True, max_size=2),
            "additionalProperties": st.one_of(st.booleans(), children),
            "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), children, max_size=2),
            "propertyNames": st.sampled_from([{"maxLength": 1}, {"pattern": "^[ab]"}, {"enum": ["a", "b", "z"]}]),
            "dependentRequired": st.dictionaries(st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES), unique=True,
                                                                                  max_size=2), max_size=1),
            "dependentSchemas": st.dictionaries(st.sampled_from(NAMES), children, max_size=1),
            "unevaluatedProperties": st.one_of(st.booleans(), children),
            "minProperties": st.integers(0, 2), "maxProperties": st.integers(1, 3)}),
        st.lists(children, min_size=1, max_size=3).map(lambda xs: {"anyOf": xs}),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: {"oneOf": xs}),
        st.tuples(children, st.sampled_from([{"minimum": 1}, {"maxLength": 2}, {"maxItems": 1},
                                             {"not": {"const": "a"}}, {"type": ["integer", "array"]}]))
        .map(lambda t: {"allOf": list(t)}),
        children.map(lambda s: {"not": s}),
        st.tuples(children, children, children).map(lambda t: {"if": t[0], "then": t[1], "else": t[2]}),
        values.map(lambda v: {"const": v}),
        st.lists(values, min_size=1, max_size=3).map(lambda vs: {"enum": vs}),
    )


schemas = st.recursive(leaf_schemas, compound_schemas, max_leaves=6)
root_schemas = st.one_of(
    schemas,
    st.tuples(schemas, schemas).map(lambda t: {"$defs": {"d": t[0]}, "anyOf": [{"$ref": "#/$defs/d"}, t[1]]}),
)


def sample(schema, rnd, depth=0):
    """A value meant to satisfy `schema` (best effort: jsonschema has the last word)."""
    if not isinstance(schema, dict) or depth > 6:
        return rnd.choice(SCALARS)
    if "$defs" in schema and "anyOf" in schema:
        branch = rnd.choice(schema["anyOf"])
        return sample(schema["$defs"]["d"] if "$ref" in branch else branch, rnd, depth + 1)
    for key in ("const",):
        if key in schema:
            return schema[key]
    if "enum" in schema:
        return rnd.choice(schema["enum"])
    if "anyOf" in schema or "oneOf" in schema:
        return sample(rnd.choice(schema.get("anyOf") or schema["oneOf"]), rnd, depth + 1)
    if "allOf" in schema:
        return sample(schema["allOf"][0], rnd, depth + 1)
    t = schema.get("type")
    if t == "array":
        n = rnd.randint(schema.get("minItems", 0), max(schema.get("minItems", 0), schema.get("maxItems", 3)))
        prefix = schema.get("prefixItems", [])
        return [sample(prefix[i] if i < len(prefix) else schema.get("items", {}), rnd, depth + 1) for i in range(n)]
    if "if" in schema:
        return sample(rnd.choice([{"allOf": [schema["if"], schema["then"]]}, schema["else"]]), rnd, depth + 1)
    if t == "object":
        return sample_object(schema, rnd, depth)
    return sample_scalar(t, rnd)


def sample_object(schema, rnd, depth):
    """An object meant to satisfy `schema` (see sample)."""
    out = {}
    props = schema.get("properties", {})
    deps = [d for k, ds in schema.get("dependentRequired", {}).items() for d in ds]
    for name in list(props) + schema.get("required", []) + deps:
        if name not in out and (name in schema.get("required", []) or rnd.random() < 0.6):
            out[name] = sample(props.get(name, schema.get("additionalProperties", {})), rnd, depth + 1)
    for pattern, sub in schema.get("patternProperties", {}).items():
        if rnd.random() < 0.5:
            key = {"^a": "a1", "b": "cb", "^c$": "c", "[0-9]": "z9"}[pattern]
            out.setdefault(key, sample(sub, rnd, depth + 1))
    if rnd.random() < 0.3 and schema.get("additionalProperties", True) is not False:
        out["z"] = sample(schema.get("additionalProperties", {}), rnd, depth + 1)
    return out


def sample_scalar(t, rnd):
    """A scalar of type `t` (any scalar if t is None)."""
    if t == "integer":
        return rnd.randint(-4, 9)
    if t == "number":
        return rnd.choice([-3, 0, 1, 2, 0.5, 1.25, 2.5, 3])
    if t == "string":
        return rnd.choice(STRINGS)
    if t == "boolean":
        return rnd.choice([True, False])
    if t == "null":
        return None
    return rnd.choice(SCALARS)


def layouts(value, limit=48):
    """The value's compact texts with its object members in every order (up to `limit`)."""
    def variants(v):
        if isinstance(v, list):
            for items in itertools.product(*[list(variants(x)) for x in v]):
                yield list(items)
        elif isinstance(v, dict):
            for keys in itertools.permutations(v):
                for vals in itertools.product(*[list(variants(v[k])) for k in keys]):
                    yield dict(zip(keys, vals))
        else:
            yield v
    return list(itertools.islice(variants(value), limit))


def validator(schema):
    cls = jsonschema.Draft202012Validator
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@settings(max_examples=examples(250), suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(root_schemas, st.lists(values, max_size=6), st.randoms(use_true_random=False))
def test_random_schemas_agree_with_jsonschema(schema, instances, rnd):
    try:
        g = Grammar.from_json_schema(schema)
    except SchemaError as e:
        check = validator(schema)
        if "Unsatisfiable" in str(e):  # then nothing is valid
            for x in instances + [sample(schema, rnd) for _ in range(4)]:
                assert not check.is_valid(x), (schema, x, str(e))
        return  # a keyword maskref cannot enforce exactly (said so, never ignored)
    check = validator(schema)
    for x in instances + [sample(schema, rnd) for _ in range(6)]:
        texts = layouts(x)
        if check.is_valid(x):
            ok = [t for t in texts if accepts(g, compact(t))]
            assert ok, ("valid instance rejected in every member order", schema, x)
            spaced = json.dumps(ok[0], indent=1, ensure_ascii=False).replace("\n", "\n\t")
            assert accepts(g, spaced), (schema, spaced)
            assert accepts(g, json.dumps(ok[0], separators=(" , ", " : "), ensure_ascii=False))
        else:
            for t in texts:
                assert not accepts(g, compact(t)), ("invalid instance accepted", schema, t)


@settings(max_examples=examples(150))
@given(schemas, st.randoms(use_true_random=False))
def test_mutated_instances(schema, rnd):
    """Mutations of valid instances: whenever jsonschema calls one invalid, it is rejected."""
    try:
        g = Grammar.from_json_schema(schema)
    except SchemaError:
        return
    check = validator(schema)
    for _ in range(4):
        x = sample(schema, rnd)
        if not check.is_valid(x):
            continue
        for _ in range(4):
            y = mutate(x, rnd)
            if not check.is_valid(y):
                assert not accepts(g, compact(y)), (schema, y)


def mutate(x, rnd):
    """One random edit somewhere in x: replace, delete, insert."""
    x = json.loads(json.dumps(x))
    parents = []
    stack = [x]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, dict)):
            parents.append(v)
            stack.extend(v.values() if isinstance(v, dict) else v)
    if not parents or rnd.random() < 0.2:
        return rnd.choice(SCALARS + [[], {}])
    p = rnd.choice(parents)
    op = rnd.choice(["replace", "delete", "insert"])
    if isinstance(p, list):
        if op == "insert" or not p:
            p.insert(rnd.randint(0, len(p)), rnd.choice(SCALARS))
        elif op == "delete":
            del p[rnd.randrange(len(p))]
        else:
            p[rnd.randrange(len(p))] = rnd.choice(SCALARS + [[], {}])
    else:
        if op == "insert" or not p:
            p[rnd.choice(KEYS)] = rnd.choice(SCALARS)
        elif op == "delete":
            del p[rnd.choice(list(p))]
        else:
            p[rnd.choice(list(p))] = rnd.choice(SCALARS + [[], {}])
    return x


# ============================================================================ masks

MASK_SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": -5, "maximum": 40},
                                      "b": {"type": "string", "maxLength": 3}},
     "required": ["a"]},
    {"type": "array", "items": {"enum": ["x", "yz", 12, None]}, "maxItems": 3},
    {"anyOf": [{"type": "number", "multipleOf": 0.5}, {"type": "boolean"}, {"type": "string", "pattern": "^a+$"}]},
    {"$defs": {"t": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/t"}}},
                     "additionalProperties": False}}, "$ref": "#/$defs/t"},
    {"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}},
    {"type": "string", "format": "date"},
]
INSTANCES = [
    ['{"a":12,"b":"ab"}', '{ "a" : -3 }'],
    ['["x",12,null]', "[]"],
    ["2.5", "true", '"aaa"'],
    ['{"c":[{"c":[]},{}]}', "{}"],
    ['{"x1":3,"y":true}', '{"yy":false}'],
    ['"2024-02-29"'],
]
SMALL_TOKENS = ["{", "}", "[", "]", '"', ":", ",", " ", "a", "b", "c", "x", "y", "z", "1", "2", "3", "-", ".",
                "0", "5", "null", "true", "false", '{"', '":', '",', '"a', "12", "ab", "aa", "é", "\n", "2024-",
                "02", "29", "tr", "ue", '"}', "]}", "yz", "e"]


def small_vocab():
    tokens = [t.encode() for t in SMALL_TOKENS] + [b"<eos>"]
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 1)


def tokenize(vocab, text):
    """Greedy longest-match tokenization with the vocabulary's non-special tokens."""
    data = text.encode("utf-8")
    by_bytes = {t: i for i, t in enumerate(vocab.tokens) if vocab.is_grammar_token(i)}
    out, i = [], 0
    while i < len(data):
        for j in range(len(data), i, -1):
            if data[i:j] in by_bytes:
                out.append(by_bytes[data[i:j]])
                i = j
                break
        else:
            raise AssertionError("cannot tokenize %r" % text)
    return out


@pytest.mark.parametrize("index", range(len(MASK_SCHEMAS)))
def test_masks_equal_the_naive_definition(index):
    grammar = Grammar.from_json_schema(MASK_SCHEMAS[index])
    vocab = small_vocab()
    rng = random.Random(index)
    for text in INSTANCES[index]:
        path = tokenize(vocab, text)
        m = Matcher(grammar, vocab)
        for k, t in enumerate(path + [None]):
            assert m.mask() == naive_mask(grammar, vocab, path[:k]), (text, k)
            if t is not None:
                assert m.consume(t)
        assert m.is_accepting()
    m = Matcher(grammar, vocab)  # and a random path through the masks
    path = []
    for _ in range(10):
        mask = m.mask()
        assert mask == naive_mask(grammar, vocab, path)
        choices = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
        if not choices:
            break
        t = rng.choice(choices)
        assert m.consume(t)
        path.append(t)


LLG_SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8},
                                      "age": {"type": "integer", "minimum": 0, "maximum": 130}},
     "required": ["name"], "additionalProperties": False},
    {"type": "array", "items": {"type": "number", "minimum": -1.5, "exclusiveMaximum": 20}, "minItems": 1, "maxItems": 4},
    {"anyOf": [{"type": "null"}, {"type": "boolean"}, {"enum": ["red", "green", 7]}]},
    {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                      "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}}}},
    {"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"},
                                                         "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                        "required": ["v"]}}, "$ref": "#/$defs/node"},
    {"type": "object", "properties": {"kind": {"const": "a"}}, "additionalProperties": {"type": "integer", "multipleOf": 3}},
    {"type": "string", "format": "email"},
    {},
    {"type": "array", "items": {"type": "integer"}, "x-guidance": {"whitespace_pattern": "[ \\n]{1,2}"}},
]


@pytest.fixture(scope="module")
def gpt2():
    llguidance = pytest.importorskip("llguidance", reason="llguidance is not installed (pip install -e '.[peers]')")
    from conformance.peers import llguidance as llguidance_adapter

    v = Vocabulary.load("gpt2")
    return v, llguidance_adapter.tokenizer(v, slices=[]), llguidance


LLG_LARK = [
    'start: "x=" %json {"type": "array", "x-guidance": {"whitespace_pattern": " ?"}} ";"',
    'start: "x=" %json {"type": "array", "items": {"type": "integer"}} ";"\n%ignore " "',
    'start: TEXT | %json {"type": "object", "properties": {"a": {"type": "boolean"}}}\nTEXT: /[a-z ]+/',
    'start: %json {"type": "string", "maxLength": 3} ("," %json {"enum": [1, 2], "x-guidance": {"whitespace_flexible": false}})*',
]


@pytest.mark.parametrize("index", range(len(LLG_SCHEMAS) + len(LLG_LARK)))
def test_masks_equal_llguidance(gpt2, index):
    """Random paths through the masks; JSON schemas alone, then %json inside Lark."""
    vocab, tok, llguidance = gpt2
    if index < len(LLG_SCHEMAS):
        schema = LLG_SCHEMAS[index]
        grammar = Grammar.from_json_schema(schema)
        lark = '%%llguidance {"no_forcing": true}\nstart: %%json %s' % json.dumps(schema)
    else:
        schema = LLG_LARK[index - len(LLG_SCHEMAS)]
        grammar = Grammar.from_lark(schema)
        lark = '%llguidance {"no_forcing": true}\n' + schema
    rng = random.Random(index)
    for _ in range(2):
        ours = Matcher(grammar, vocab)
        theirs = llguidance.LLMatcher(tok, lark)
        assert not theirs.is_error(), theirs.get_error()
        path = []
        for _ in range(10):
            mask = ours.mask()
            bits = theirs.compute_bitmask()
            mine = mask.to_bytes()
            if mine != bits[:len(mine)]:
                only_ours = [t for t in mask.allowed() if not (bits[t >> 3] >> (t & 7)) & 1]
                only_theirs = [t for t in range(len(vocab)) if (bits[t >> 3] >> (t & 7)) & 1 and t not in mask]
                pytest.fail("%s after %r: only maskref allows %r; only llguidance allows %r" % (
                    json.dumps(schema), vocab.decode(path), [vocab.tokens[t] for t in only_ours[:10]],
                    [vocab.tokens[t] for t in only_theirs[:10]]))
            choices = [t for t in mask.allowed() if t not in vocab.eos_token_ids]
            if not choices:
                break
            t = rng.choice(choices)
            path.append(t)
            assert ours.consume(t) and theirs.consume_token(t)


def test_whitespace_matched_once_masks_equal_naive():
    """A bounded whitespace pattern is matched once between two tokens: masks from the
    walk (with row reuse across the copied rows) equal the naive definition's."""
    vocab = Vocabulary.from_bytes(
        [b"<eos>", b"[", b"]", b",", b"1", b" ", b"  ", b"   ", b" 1", b"  1", b"1 ", b"\n", b", "], eos_token_id=0)
    grammar = Grammar.from_json_schema({"type": "array", "items": {"type": "integer"}},
                                       whitespace_pattern="[ \\n]{1,2}")
    for path in ([], [1], [1, 5], [1, 6], [1, 5, 4], [1, 4, 10], [1, 4, 5], [1, 4, 12, 5]):
        m = Matcher(grammar, vocab)
        assert m.consume_tokens(path), path
        assert m.mask() == naive_mask(grammar, vocab, path), path
    m = Matcher(grammar, vocab)  # two spaces over two tokens are one span; a third is not
    assert m.consume_tokens([1, 5, 5]) and not m.consume(5) and not m.consume(6)
