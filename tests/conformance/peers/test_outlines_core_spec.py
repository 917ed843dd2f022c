"""outlines-core's closest-to-the-spec configuration, the engine `outlines-core-spec`
(conformance/peers/outlines_core/spec.py): JSON's whitespace between tokens where
`outlines-core` (outlines-core's default) has at most one space, and its known
differences' predicates reading the schema with that whitespace. Most need outlines-core
(not in CI's environment)."""
import pytest

from conformance.divergence import Divergence
from conformance.peers.outlines_core.differences import KNOWN_DIFFERENCES
from conformance.peers.outlines_core.engine import OutlinesCoreEngine
from conformance.peers.outlines_core.spec import SPEC_KNOWN_DIFFERENCES, OutlinesCoreSpecEngine
from conformance.registry import engine_names, get_engine
from conformance.vectors import GrammarSpec, ids_of, load_builtin

B = load_builtin("bytes")
BOUNDED = {"type": "object", "properties": {"a": {"type": "integer", "maximum": 5}}, "required": ["a"]}


def ids(text):
    return list(text.encode("utf-8"))


def test_registered_with_the_same_differences():
    assert "outlines-core-spec" in engine_names()
    assert get_engine("outlines-core-spec").name == "outlines-core-spec"
    assert [k.name for k in SPEC_KNOWN_DIFFERENCES] == [k.name for k in KNOWN_DIFFERENCES]
    assert SPEC_KNOWN_DIFFERENCES.named("json-schema-regex").applies is not KNOWN_DIFFERENCES.named(
        "json-schema-regex").applies


def test_spec_configuration_takes_json_whitespace():
    """After `{` outlines-core's default allows one space and no newline; with JSON's
    whitespace, a newline, and a second space after the first."""
    pytest.importorskip("outlines_core")
    spec = GrammarSpec("json_schema", schema=BOUNDED)
    masks = {}
    for engine in (OutlinesCoreEngine(), OutlinesCoreSpecEngine()):
        session = engine.start(spec, B)
        assert session.consume(ord("{"))
        first = ids_of(session.mask())
        assert session.consume(ord(" "))
        masks[engine.name] = (first, ids_of(session.mask()))
    default, spec_ws = masks["outlines-core"], masks["outlines-core-spec"]
    assert ord(" ") in default[0] and ord("\n") not in default[0] and ord(" ") not in default[1]
    assert ord("\n") in spec_ws[0] and ord("\t") in spec_ws[0] and ord(" ") in spec_ws[1]


def test_json_schema_regex_reads_json_whitespace():
    """outlines-core ignores maximum: after a newline the spec configuration's predicate
    reads the text (and explains 9), the default's cannot."""
    pytest.importorskip("outlines_core")
    spec = GrammarSpec("json_schema", schema=BOUNDED)
    nine = Divergence(spec, B, ids('{\n"a":'), 6, [ord("9")], [])
    assert SPEC_KNOWN_DIFFERENCES.named("json-schema-regex").applies(nine)
    assert not KNOWN_DIFFERENCES.named("json-schema-regex").applies(nine)
    # near miss: a token outlines-core's regex refuses too
    assert not SPEC_KNOWN_DIFFERENCES.named("json-schema-regex").applies(
        Divergence(spec, B, ids('{\n"a":'), 6, [ord("x")], []))
