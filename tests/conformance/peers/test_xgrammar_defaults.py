"""xgrammar's default configuration, the engine `xgrammar-default` (conformance/peers/
xgrammar/defaults.py): strict mode's reading of a schema, the predicate of its known
difference `strict-mode` (these run without xgrammar), and, where xgrammar is installed,
strict mode's distinctive behaviour: an extra property the engine `xgrammar` allows is
refused."""
import json
import pathlib

import pytest

from conformance.divergence import Divergence
from conformance.peers.xgrammar.defaults import (
    DEFAULT_KNOWN_DIFFERENCES,
    XgrammarDefaultEngine,
    strict_rewrite,
    strict_schema,
)
from conformance.peers.xgrammar.differences import KNOWN_DIFFERENCES, accepts_omitted
from conformance.peers.xgrammar.engine import XgrammarEngine
from conformance.readings.json_schemas import rewrite_schemas
from conformance.registry import engine_names, get_engine
from conformance.vectors import GrammarSpec, ids_of, load_builtin

B = load_builtin("bytes")
STRICT = DEFAULT_KNOWN_DIFFERENCES.named("strict-mode")
OBJECT = {"type": "object", "properties": {"a": {"type": "integer"}}}


def ids(text):
    return list(text.encode("utf-8"))


def divergence(schema, text, only_engine=(), only_refimpl=()):
    return Divergence(GrammarSpec("json_schema", schema=schema), B, ids(text), len(ids(text)),
                      list(only_engine), list(only_refimpl))


def test_strict_schema_closes_objects_and_arrays():
    assert strict_schema(OBJECT)["additionalProperties"] is False
    assert strict_schema({"properties": {}})["additionalProperties"] is False  # read as an object
    assert strict_schema({"type": ["object", "null"], "required": ["a"]})["additionalProperties"] is False
    assert strict_schema({"type": "array", "prefixItems": [{}]})["items"] is False
    assert strict_schema({"type": "array", "minItems": 1})["items"] is False
    nested = rewrite_schemas({"type": "array", "items": OBJECT}, strict_schema)
    assert "items" in nested and nested["items"]["additionalProperties"] is False
    both = strict_schema({"type": ["object", "array"], "properties": {}, "prefixItems": [{}]})
    assert both["additionalProperties"] is False and both["items"] is False


def test_strict_schema_leaves_open_what_strict_mode_leaves_open():
    for s in ({"type": "object"}, {"type": "array", "description": "any"}, {"type": ["object", "null"]},
              {"required": ["a"]},
              dict(OBJECT, additionalProperties=True), dict(OBJECT, unevaluatedProperties={}),
              {"type": "array", "items": {}}, {"type": "string", "maxLength": 2}):
        assert strict_schema(s) == s, s


def test_strict_rewrite_closes_ref_targets():
    """A `$ref`'s target is closed wherever it is, `type` alone too (it gets its own rule);
    inline, `type` alone stays open."""
    schema = {"properties": {"a": {"$ref": "#/x"}, "b": {"$ref": "#/definitions/y"}, "c": {"type": "object"}},
              "x": {"type": "object", "required": ["k"]}, "definitions": {"y": {"type": "array"}}}
    read = strict_rewrite(schema)
    assert read["x"]["additionalProperties"] is False and read["definitions"]["y"]["items"] is False
    assert read["properties"]["c"] == {"type": "object"} and read["additionalProperties"] is False


STRICT_CASES = [OBJECT, {"properties": {"a": {}}}, {"type": ["object", "null"], "required": ["a"]},
                {"type": "array", "prefixItems": [{"type": "integer"}]}, {"type": "object"}, {"type": ["object", "null"]},
                {"type": "array", "items": OBJECT}, {"type": ["object", "array"], "properties": {}, "prefixItems": [{}]},
                {"properties": {"a": {"$ref": "#/x"}, "b": True, "c": {"type": "array"}}, "x": {"type": "object"}},
                {"anyOf": [OBJECT, {"type": "array", "prefixItems": [{}]}]}]


def test_strict_mode_is_the_non_strict_reading_of_strict_rewrite():
    """xgrammar's grammar in strict mode is its grammar without it for strict_rewrite's
    schema, rule for rule: on these schemas and on every JSON schema of the default suite."""
    xgr = pytest.importorskip("xgrammar")
    from conformance.generate import SUITE_DIR
    from conformance.vectors import read_vectors

    def grammar(schema, strict):
        return str(xgr.Grammar.from_json_schema(json.dumps(schema), strict_mode=strict))

    suite = [v.grammar.schema for path in sorted(pathlib.Path(SUITE_DIR).glob("*.jsonl"))
             for _, _, v in read_vectors(str(path)) if v.grammar.kind == "json_schema"]
    for schema in STRICT_CASES + suite:
        try:
            strict = grammar(schema, True)
        except RuntimeError:  # a schema xgrammar refuses: refused either way
            with pytest.raises(RuntimeError):
                grammar(strict_rewrite(schema), False)
            continue
        assert grammar(strict_rewrite(schema), False) == strict, schema


def test_strict_mode_predicate():
    # after {"a":1 strict mode allows no other property: no comma
    assert STRICT.applies(divergence(OBJECT, '{"a":1', only_refimpl=[ord(",")]))
    assert STRICT.applies(divergence({"type": "array", "prefixItems": [{"type": "integer"}]}, "[1",
                                     only_refimpl=[ord(",")]))
    # near misses: an open object; a token strict mode allows; a token only the peer allows
    assert not STRICT.applies(divergence(dict(OBJECT, additionalProperties=True), '{"a":1', only_refimpl=[ord(",")]))
    assert not STRICT.applies(divergence(OBJECT, '{"a":1', only_refimpl=[ord("2")]))
    assert not STRICT.applies(divergence(OBJECT, '{"a":1', only_engine=[ord("x")]))
    assert not STRICT.applies(divergence({"type": "object"}, '{"a":1', only_refimpl=[ord(",")]))


def test_strict_mode_only_completes_other_readings():
    """Where xgrammar's other readings explain the divergence without strict mode (an untyped
    schema read as an object: no value but an object may begin), strict-mode does not claim it."""
    begins = [ord(c) for c in '"-0123456789[ftn']
    d = divergence({"properties": {"a": {}}}, "", only_refimpl=begins)
    assert not STRICT.applies(d)
    assert DEFAULT_KNOWN_DIFFERENCES.named("untyped-object-keywords").applies(d)


def test_known_differences_are_xgrammars_then_strict_mode():
    assert [k.name for k in DEFAULT_KNOWN_DIFFERENCES] == [k.name for k in KNOWN_DIFFERENCES] + ["strict-mode"]
    rerun = DEFAULT_KNOWN_DIFFERENCES.named("mask-omits-accepted-token")
    assert rerun.applies is not accepts_omitted  # it runs xgrammar again in strict mode
    assert DEFAULT_KNOWN_DIFFERENCES.named("json-whitespace") is KNOWN_DIFFERENCES.named("json-whitespace")


def test_registered():
    assert "xgrammar-default" in engine_names()
    assert get_engine("xgrammar-default").name == "xgrammar-default"
    assert get_engine("xgrammar").name == "xgrammar"


def test_default_configuration_refuses_an_extra_property():
    """xgrammar-default's mask after {"a":1 has no comma; the engine xgrammar's has."""
    pytest.importorskip("xgrammar")
    spec = GrammarSpec("json_schema", schema=OBJECT)
    masks = {}
    for engine in (XgrammarEngine(), XgrammarDefaultEngine()):
        session = engine.start(spec, B)
        assert all(session.consume(t) for t in ids('{"a":1'))
        masks[engine.name] = ids_of(session.mask())
    assert ord(",") in masks["xgrammar"] and ord(",") not in masks["xgrammar-default"]
    assert ord("}") in masks["xgrammar"] and ord("}") in masks["xgrammar-default"]


def test_strict_mode_with_a_keyword_xgrammar_leaves_out():
    # closed by strict mode, "b" can never be written: refimpl's reading of the closed schema
    # has no object; xgrammar also leaves out the `required` name outside `properties`
    # (required-outside-properties), so it ends the object after "a"
    schema = dict(OBJECT, required=["a", "b"])
    assert STRICT.applies(divergence(schema, '{"a":1', only_engine=ids("}"), only_refimpl=ids(",")))
    # allowing "," too is not what the closed reading answers
    assert not STRICT.applies(divergence(schema, '{"a":1', only_engine=ids("}")))
    # nor is a schema strict mode does not close
    assert not STRICT.applies(divergence(dict(schema, additionalProperties=True), '{"a":1',
                                         only_engine=ids("}"), only_refimpl=ids(",")))
