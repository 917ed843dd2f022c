"""The shared state of a compilation (refimpl/frontends/jsonschema/compilation.py): what
cannot be enforced exactly raises, or under `lenient` is listed once per keyword and
pointer."""
import pytest

from refimpl import Grammar
from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema import DEFAULT_OPTIONS
from refimpl.frontends.jsonschema.compilation import Compilation
from refimpl.frontends.jsonschema.subschemas import Subschemas
from refimpl.grammar.ir import GrammarIR
from refimpl.recognition.recognizer import Recognizer


def compilation(**options):
    return Compilation(GrammarIR(), Subschemas({}), dict(DEFAULT_OPTIONS, **options), 0)


def test_unsupported_raises_naming_keyword_and_pointer():
    with pytest.raises(SchemaError) as e:
        compilation().unsupported("uniqueItems", "/items/uniqueItems", "not context-free")
    assert e.value.pointer == "/items/uniqueItems"
    assert "uniqueItems cannot be enforced exactly: not context-free (pass lenient=True" in str(e.value)


def test_lenient_lists_each_keyword_and_pointer_once():
    comp = compilation(lenient=True)
    comp.unsupported("format", "/a/format", "unknown format")
    comp.unsupported("format", "/a/format", "unknown format")
    comp.unsupported("format", "/b/format", "unknown format")
    comp.ignore("oneOf", "/oneOf", "treated as anyOf")
    assert [(k.keyword, k.pointer) for k in comp.ignored] == [("format", "/a/format"), ("format", "/b/format"),
                                                              ("oneOf", "/oneOf")]


def test_lenient_lists_what_it_ignores():
    schema = {"type": "array", "uniqueItems": True, "items": {"type": "string", "format": "idn-email"}}
    with pytest.raises(SchemaError) as e:
        Grammar.from_json_schema(schema)
    assert "uniqueItems" in str(e.value) and e.value.pointer == "/uniqueItems"
    g = Grammar.from_json_schema(schema, lenient=True)
    assert sorted((k.keyword, k.pointer) for k in g.ignored_keywords) == [
        ("format", "/items/format"), ("uniqueItems", "/uniqueItems")]
    r = Recognizer(g.compiled)  # uniqueItems skipped: duplicates pass
    assert r.consume_bytes(b'["a","a"]') and r.is_accepting()
    assert Grammar.from_json_schema({"type": "string"}).ignored_keywords == []


def test_the_ir_records_where_this_compilation_starts():
    ir = GrammarIR()
    a = ir.add_nonterminal("before")
    ir.add_rule(a, ())
    comp = Compilation(ir, Subschemas({}), dict(DEFAULT_OPTIONS), 3)
    assert (comp.first_rule, comp.first_name, comp.lexeme_class) == (1, 1, 3)
