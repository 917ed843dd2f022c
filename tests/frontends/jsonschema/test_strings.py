"""JSON strings (refimpl/frontends/jsonschema/strings.py): a decoded-string regex quoted
into every JSON encoding the allowed escapes give, and general \\uXXXX escapes when asked."""
from refimpl import Grammar
from refimpl.frontends.jsonschema.strings import Strings
from refimpl.regex import ExprSet, compile_pattern
from refimpl.regex.derivative import derivative
from tests.support.text_outcome import outcome


def accepts(grammar, text) -> bool:
    return outcome(grammar, text) == "accept"


def test_string_escapes_and_general_unicode_escapes():
    g = Grammar.from_json_schema({"type": "string"})
    assert accepts(g, '"\\n\\u001e\\u007F"') and not accepts(g, '"\\u00e9"') and not accepts(g, '"\x7f"')
    general = Grammar.from_json_schema({"type": "string", "maxLength": 1}, json_allow_general_unicode_escapes=True)
    assert accepts(general, '"\\u00e9"') and accepts(general, '"\\uD83D\\uDE00"')
    assert not accepts(general, '"\\uD83D"') and not accepts(general, '"ab"')
    # keys of additional members, when the object has named properties (as llguidance)
    obj = Grammar.from_json_schema({"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}})
    assert accepts(obj, '{"\\u00e9":"x"}')
    assert not accepts(obj, '{"\\u0061":"x"}')  # that is "a", which must be an integer


def matches(es, e, data):
    for b in data:
        e = derivative(es, e, b)
    return es.nullable(e)


def test_quote_is_every_encoding_of_the_decoded_strings():
    es = ExprSet()
    strings = Strings(es, "nu")
    q = strings.quote(compile_pattern(es, "a\n|é"))
    assert [matches(es, q, t) for t in (b'"a\\n"', b'"a\\u000a"', b'"a\\u000A"', b'"\xc3\xa9"', b'"a\n"')] == [
        True, True, True, True, False]
    only_n = Strings(es, "n").quote(compile_pattern(es, "\n"))
    assert matches(es, only_n, b'"\\n"') and not matches(es, only_n, b'"\\u000a"')
    assert strings.length_only(compile_pattern(es, "(?s:.){1,3}")) == (1, 3)
    assert strings.length_only(compile_pattern(es, "a")) is None
