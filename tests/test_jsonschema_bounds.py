"""What stays exponential in theory is bounded (refimpl/limits.py; docs/jsonschema.md,
"Bounds"): a schema whose exact layout is a product fails fast with a LimitError naming
the limit, instead of compiling for minutes (SchemaStore: mongodb-atlas-search-index-
definition's 17 `dependencies` on one property, drupal-recipe's 9 unanchored
patternProperties).
"""
import pytest

from refimpl import Grammar
from refimpl.errors import LimitError
from refimpl.limits import Limits
from refimpl.recognizer import Recognizer


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
