"""xgrammar on llama.cpp's converted grammar, the engine `xgrammar.cpp`
(conformance/peers/xgrammar/converted.py, MaskBench's XGrammar.cpp): the converter's
reading of a schema and xgrammar's own differences asked on the converted GBNF. Needs
xgrammar and llama-cpp-python (neither is in CI's environment) but for the list."""
import pytest

from conformance.divergence import Divergence
from conformance.peers.xgrammar.converted import CONVERTED_KNOWN_DIFFERENCES
from conformance.peers.xgrammar.differences import KNOWN_DIFFERENCES
from conformance.registry import engine_names
from conformance.vectors import GrammarSpec, ids_of, load_builtin

B = load_builtin("bytes")
BOUNDED = GrammarSpec("json_schema", schema={
    "type": "object", "properties": {"a": {"type": "integer", "maximum": 5}}, "required": ["a"]})
STRING = GrammarSpec("json_schema", schema={"type": "string"})


def ids(text):
    return list(text.encode("utf-8"))


def test_the_converters_differences_then_xgrammars():
    assert "xgrammar.cpp" in engine_names()
    names = [k.name for k in CONVERTED_KNOWN_DIFFERENCES]
    assert names == ["raw-control-characters", "converted-schema"] + [k.name for k in KNOWN_DIFFERENCES]
    assert len(set(names)) == len(names)


def test_predicates_read_the_converted_gbnf():
    pytest.importorskip("llama_cpp")
    converted = CONVERTED_KNOWN_DIFFERENCES.named("converted-schema")
    assert converted.applies(Divergence(BOUNDED, B, ids('{\n"a":'), 6, [ord("9")], []))  # maximum ignored
    assert not converted.applies(Divergence(BOUNDED, B, ids('{\n"a":'), 6, [ord("x")], []))
    raw = CONVERTED_KNOWN_DIFFERENCES.named("raw-control-characters")
    assert raw.applies(Divergence(STRING, B, ids('"a'), 2, [0x01], []))
    assert not raw.applies(Divergence(STRING, B, ids('"a'), 2, [ord("a")], []))
    # xgrammar's own GBNF bug, on the converter's string characters [^"\\]
    surrogates = CONVERTED_KNOWN_DIFFERENCES.named("surrogates-as-utf8")
    prefix = [ord('"'), 0xED]
    assert surrogates.applies(Divergence(STRING, B, prefix, 2, [0xA0], []))
    assert not surrogates.applies(Divergence(STRING, B, prefix, 2, [0x9F], []))


def test_xgrammar_cpp_ignores_maximum_as_the_converter_does():
    pytest.importorskip("xgrammar")
    pytest.importorskip("llama_cpp")
    from conformance.peers.xgrammar.converted import XgrammarCppEngine
    from conformance.peers.xgrammar.engine import XgrammarEngine

    masks = {}
    for engine in (XgrammarEngine(), XgrammarCppEngine()):
        session = engine.start(BOUNDED, B)
        assert all(session.consume(t) for t in ids('{\n"a":'))
        masks[engine.name] = ids_of(session.mask())
    assert ord("9") not in masks["xgrammar"] and ord("9") in masks["xgrammar.cpp"]
    assert ord("5") in masks["xgrammar"] and ord("5") in masks["xgrammar.cpp"]
