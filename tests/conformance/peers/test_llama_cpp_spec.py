"""llama.cpp's closest-to-the-spec configuration, the engine `llama.cpp-spec`
(conformance/peers/llama_cpp/spec.py, MaskBench's llama.cpp): the converter's whitespace
rule given JSON's whitespace, where `llama.cpp` (the converter's default) has at most one
space; its known differences' predicates read the GBNF so. Most need llama-cpp-python
(not in CI's environment)."""
import pytest

from conformance.divergence import Divergence
from conformance.peers.llama_cpp.differences import KNOWN_DIFFERENCES
from conformance.peers.llama_cpp.reading import gbnf_of
from conformance.peers.llama_cpp.spec import SPEC_KNOWN_DIFFERENCES
from conformance.readings.converted_schemas import JSON_SPACE
from conformance.registry import engine_names, get_engine
from conformance.vectors import GrammarSpec, ids_of, load_builtin

B = load_builtin("bytes")
BOUNDED = GrammarSpec("json_schema", schema={
    "type": "object", "properties": {"a": {"type": "integer", "maximum": 5}}, "required": ["a"]})


def ids(text):
    return list(text.encode("utf-8"))


def test_registered_with_the_same_differences():
    assert "llama.cpp-spec" in engine_names()
    assert get_engine("llama.cpp-spec").name == "llama.cpp-spec"
    assert [k.name for k in SPEC_KNOWN_DIFFERENCES] == [k.name for k in KNOWN_DIFFERENCES]
    assert SPEC_KNOWN_DIFFERENCES.named("converted-schema").applies is not KNOWN_DIFFERENCES.named(
        "converted-schema").applies
    assert SPEC_KNOWN_DIFFERENCES.named("nul-first") is KNOWN_DIFFERENCES.named("nul-first")  # reads no GBNF


def test_gbnf_vectors_are_unchanged():
    gbnf = GrammarSpec("gbnf", 'root ::= "a" space\nspace ::= " "?\n')
    assert gbnf_of(gbnf, JSON_SPACE) == gbnf.source


def test_spec_configuration_takes_json_whitespace():
    """After `{` the converter's default allows one space and no newline; with JSON's
    whitespace, a newline, and a second space after the first."""
    pytest.importorskip("llama_cpp")
    pytest.importorskip("gguf")
    from conformance.peers.llama_cpp import LlamaCppEngine
    from conformance.peers.llama_cpp.spec import LlamaCppSpecEngine

    assert "space ::= [ \\t\\n\\r]*" in gbnf_of(BOUNDED, JSON_SPACE).splitlines()
    masks = {}
    for engine in (LlamaCppEngine(), LlamaCppSpecEngine()):
        session = engine.start(BOUNDED, B)
        assert session.consume(ord("{"))
        first = ids_of(session.mask())
        assert session.consume(ord(" "))
        masks[engine.name] = (first, ids_of(session.mask()))
    default, spec_ws = masks["llama.cpp"], masks["llama.cpp-spec"]
    assert ord(" ") in default[0] and ord("\n") not in default[0] and ord(" ") not in default[1]
    assert ord("\n") in spec_ws[0] and ord("\t") in spec_ws[0] and ord(" ") in spec_ws[1]


def test_converted_schema_reads_json_whitespace():
    """The converter ignores maximum: after a newline the spec configuration's predicate
    reads the text (and explains 9), the default's cannot."""
    pytest.importorskip("llama_cpp")
    nine = Divergence(BOUNDED, B, ids('{\n"a":'), 6, [ord("9")], [])
    assert SPEC_KNOWN_DIFFERENCES.named("converted-schema").applies(nine)
    assert not KNOWN_DIFFERENCES.named("converted-schema").applies(nine)
    # near miss: a token the converted GBNF refuses too
    assert not SPEC_KNOWN_DIFFERENCES.named("converted-schema").applies(
        Divergence(BOUNDED, B, ids('{\n"a":'), 6, [ord("x")], []))
