"""What stays exponential in theory is bounded (refimpl/limits.py; docs/jsonschema.md,
"Bounds"): a schema whose exact layout is a product fails fast with a LimitError naming
the limit, instead of compiling for minutes (SchemaStore: mongodb-atlas-search-index-
definition's 17 `dependencies` on one property, drupal-recipe's 9 unanchored
patternProperties).
"""
import pytest
from tests.support.budget import examples
from hypothesis import given, settings, strategies as st

from refimpl import Grammar
from refimpl.errors import LimitError
from refimpl.limits import Limits
from refimpl.recognition.recognizer import Recognizer


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


def test_pattern_regions_fail_naming_the_limit():
    # unanchored patterns: every subset of them is matched by some key (2^n regions)
    patterns = {"%s.%s" % (a, a): {"type": "integer", "minimum": i} for i, a in enumerate("abcdefghi")}
    schema = {"type": "object", "patternProperties": patterns}
    with pytest.raises(LimitError) as e:
        Grammar.from_json_schema(schema, limits=Limits(property_regions=64))
    assert e.value.limit == "property_regions"
    few = {"type": "object", "patternProperties": dict(list(patterns.items())[:3])}
    g = Grammar.from_json_schema(few, limits=Limits(property_regions=64))
    for text, ok in ((b'{"a.a-b.b": 1}', True), (b'{"a.a-b.b": 0}', False), (b'{"zz": "x"}', True)):
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text) and r.is_accepting()) == ok, text


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
        from refimpl.frontends.jsonschema.containers import Containers
        from refimpl.frontends.jsonschema.disjoint import Disjointness

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


# ------------------------------------------ the witness shortcut's premise

@settings(max_examples=examples(300))
@given(st.binary(max_size=8) | st.text(max_size=4).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_any_string_is_exactly_valid_utf8(data):
    """disjoint._matches stops at `any_string` and decides the rest as "is it valid
    UTF-8": the regex (?s:.)* over bytes and Python's strict decoder agree."""
    from refimpl.frontends.jsonschema.disjoint import _utf8
    from refimpl.regex import ExprSet, compile_pattern
    from refimpl.regex.derivative import derivative

    es = ExprSet()
    x = compile_pattern(es, "(?s:.)*")
    for b in data:
        x = derivative(es, x, b)
    assert es.nullable(x) == _utf8(data)
