"""The x-guidance options (refimpl/frontends/jsonschema/options.py): whitespace and
separators, and the order in which defaults, keyword options, the schema's own
"x-guidance" and overrides apply."""
import pytest

from refimpl import Grammar
from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema import json_schema_to_ir
from tests.support.text_outcome import outcome


def accepts(grammar, text) -> bool:
    return outcome(grammar, text) == "accept"


def test_options_whitespace_and_separators():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    assert accepts(Grammar.from_json_schema(schema), '{ "a" :1,\n\t"b": 2 }')
    compact_only = Grammar.from_json_schema(schema, whitespace_flexible=False)
    assert accepts(compact_only, '{"a":1,"b":2}') and not accepts(compact_only, '{"a": 1}')
    spaced = Grammar.from_json_schema(schema, item_separator=", ", key_separator=": ", whitespace_flexible=False)
    assert accepts(spaced, '{"a": 1, "b": 2}') and not accepts(spaced, '{"a":1,"b":2}')
    # order: defaults < keyword options < the schema's x-guidance < overrides
    with_x = dict(schema, **{"x-guidance": {"whitespace_flexible": False}})
    assert not accepts(Grammar.from_json_schema(with_x, whitespace_flexible=True), '{"a": 1}')
    r = json_schema_to_ir(with_x, overrides={"whitespace_flexible": True})
    assert r.options["whitespace_flexible"] is True
    bounded = Grammar.from_json_schema(schema, whitespace_pattern="[ ]+")
    assert accepts(bounded, '{ "a": 1 }') and not accepts(bounded, '{\n"a":1}')
    # the pattern is the whole span between two tokens, matched once (llguidance's
    # SkipRepetition::Once): a bounded pattern bounds the whitespace
    two = Grammar.from_json_schema(schema, whitespace_pattern="[ ]{1,2}")
    assert accepts(two, '{  "a":  1 }') and not accepts(two, '{   "a": 1}')
    assert not accepts(two, '{ "a" : 1 }  ')  # nor after the last token
    with pytest.raises(SchemaError, match="unknown option 'color'"):
        Grammar.from_json_schema(schema, color=True)
    with pytest.raises(SchemaError, match="invalid escape character"):
        Grammar.from_json_schema(schema, json_allowed_escapes="nx")


@pytest.mark.parametrize("layer, pointer", [
    ({"x-guidance": {"whitespace_pattern": "("}}, "/x-guidance/whitespace_pattern"),
    ({"defaults": {"whitespace_pattern": "("}}, ""),
    ({"overrides": {"item_separator": "[a"}}, ""),
    ({"key_separator": "\udcff"}, ""),
])
def test_a_malformed_regex_option_is_named_where_its_layer_gives_it(layer, pointer):
    """An option from `defaults`, a keyword argument or `overrides` is not in the schema:
    its error pointed at /x-guidance/... all the same (found by the json-schema-options
    fuzz target)."""
    schema = {"type": "array"}
    schema.update((k, v) for k, v in layer.items() if k == "x-guidance")
    options = {k: v for k, v in layer.items() if k != "x-guidance"}
    with pytest.raises(SchemaError) as e:
        Grammar.from_json_schema(schema, **options)
    assert e.value.pointer == pointer and "invalid" in e.value.message
