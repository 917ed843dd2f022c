"""The scalar algebra (refimpl/frontends/jsonschema/scalars.py): the null, boolean,
number and string values a subschema allows, combined exactly through allOf, anyOf,
oneOf, not and if/then/else."""
import pytest

from refimpl.errors import SchemaError
from refimpl.frontends.jsonschema.compiler import compiler_for
from refimpl.frontends.jsonschema.languages import matches

NUMBERS = ["0", "1", "-1", "1.5", "2", "1.0", "1e3", "10"]
STRINGS = ["", "a", "ab", "abc", "é"]


def allowed(schema, **options):
    """The sample scalars the schema's scalars allow, as texts."""
    c = compiler_for(schema, **options)
    s = c.scalars.of(c.comp.subschemas.root)
    es = c.comp.es
    out = (["null"] if s.null else []) + sorted("true" if b else "false" for b in s.booleans)
    out += [t for t in NUMBERS if matches(es, s.number, t)]
    out += ['"%s"' % t for t in STRINGS if matches(es, s.string, t)]
    return out


@pytest.mark.parametrize("schema, texts", [
    ({"type": ["null", "boolean"]}, ["null", "false", "true"]),
    ({"enum": [1, 1.0, "a", False]}, ["false", "1", '"a"']),
    ({"type": "integer", "not": {"const": 1}}, ["0", "-1", "2", "10"]),
    ({"not": {"type": "integer"}}, ["null", "false", "true", "1.5", '""', '"a"', '"ab"', '"abc"', '"é"']),
    ({"anyOf": [{"type": "string", "maxLength": 1}, {"const": 2}]}, ["2", '""', '"a"', '"é"']),
    ({"oneOf": [{"type": "string"}, {"maxLength": 1}]}, ["null", "false", "true"] + NUMBERS + ['"ab"', '"abc"']),
    ({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "null"}}, ["null", '"ab"', '"abc"']),
    ({"allOf": [{"minimum": 1}, {"maximum": 2}], "type": "number"}, ["1", "1.5", "2", "1.0"]),
])
def test_scalars(schema, texts):
    assert allowed(schema) == texts


def test_complement_is_within_canonical_texts():
    c = compiler_for({"const": 1})
    one = c.scalars.of(c.comp.subschemas.root)
    others = c.scalars.complement(one)
    es = c.comp.es
    assert not matches(es, others.number, "1") and not matches(es, others.number, "1.0")  # 1.0 is the value 1
    assert matches(es, others.number, "2") and not matches(es, others.number, "1e0")
    assert c.scalars.complement(c.scalars.universe) == c.scalars.nothing
    assert c.scalars.intersect(one, c.scalars.universe) == one
    assert c.scalars.union(one, c.scalars.nothing) == one


def test_names_and_string_lexemes():
    c = compiler_for({})
    assert c.scalars.name(c.scalars.universe) == "null|boolean|number|string"
    c = compiler_for({"type": ["integer", "boolean"], "not": {"const": True}})
    assert c.scalars.name(c.scalars.of(c.comp.subschemas.root)) == "false|integer"
    c = compiler_for({"maxLength": 1}, json_allow_general_unicode_escapes=True)
    decoded = c.scalars.of(c.comp.subschemas.root).string
    text = c.scalars.string_lexeme(decoded)
    assert matches(c.comp.es, text, '"\\u00e9"') and matches(c.comp.es, text, '"a"')
    assert not matches(c.comp.es, text, '"ab"')
    plain = compiler_for({"maxLength": 1})
    assert not matches(plain.comp.es, plain.scalars.string_lexeme(plain.scalars.of(plain.comp.subschemas.root).string),
                       '"\\u00e9"')


def test_in_place_cycles_have_no_meaning():
    c = compiler_for({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})
    with pytest.raises(SchemaError, match="circular in-place references") as e:
        c.scalars.of(c.comp.subschemas.root)
    assert e.value.pointer == "/$defs/a"
