"""The JSON's punctuation as lexemes (refimpl/frontends/jsonschema/lexemes.py): in the
compilation's lexeme class, the separators from the options' regexes."""
import pytest

from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema.compiler import compiler_for


def test_literals_and_separators_in_the_json_class():
    c = compiler_for({}, item_separator=",", key_separator=": ?")
    c.comp.lexeme_class = 4
    ir = c.comp.ir
    comma, colon, brace = c.lexemes.separator("item_separator"), c.lexemes.separator("key_separator"), c.lexemes.literal("{")
    assert [ir.lexemes[~x].name for x in (comma, colon, brace)] == ['","', "/: ?/", '"{"']
    assert {ir.lexemes[~x].lexeme_class for x in (comma, colon, brace)} == {4}
    assert c.lexemes.separator("key_separator") == colon and c.lexemes.literal("{") == brace


def test_a_separator_that_is_no_regex():
    """Named where its layer gives it: the schema's x-guidance, or no place in the schema
    (a keyword argument: the message names the option)."""
    with pytest.raises(SchemaError, match="invalid item_separator regex") as e:
        compiler_for({"x-guidance": {"item_separator": "("}})
    assert e.value.pointer == "/x-guidance/item_separator"
    with pytest.raises(SchemaError, match="invalid item_separator regex") as e:
        compiler_for({}, item_separator="(")
    assert e.value.pointer == ""
