"""lm-format-enforcer's known differences where its parser raises on a schema it cannot
write and the enforcer then allows only EOS (the session's note says what it raised;
E11, E14-E16, E18 from SchemaStore, and mixed enums). Two more of that kind, tried
earlier, are in json_values.py: `non-string-const` and `one-of-merge`."""
from __future__ import annotations

from typing import Any, Dict, List

from ....differences import KnownDifferences
from ....divergence import Divergence
from ....readings.json_schemas import rewrite_schemas, schemas

KNOWN_DIFFERENCES = KnownDifferences()


def parser_raised(d: Divergence, message: str) -> bool:
    """lm-format-enforcer's parser raised `message` (the session's note), and it allows
    EOS only where refimpl does not allow it."""
    if d.error or d.refused is not None or not d.note or not d.note.startswith("parser-error"):
        return False
    return message in d.note and bool(d.only_engine) and all(t in d.vocab.eos_token_ids for t in d.only_engine)


@KNOWN_DIFFERENCES.declare(
    "mixed-enum", "peer-bug",
    "lm-format-enforcer cannot write an enum whose values are neither all strings nor all numbers "
    "({\"enum\": [\"red\", 7]}, or with null): get_parser raises \"Unsupported enum type\" (or, under "
    "\"type\": \"string\", its string parser calls startswith on null: an AttributeError) and the "
    "enforcer allows only EOS",
    ends_path=True,
    cites=('JSON Schema 2020-12 Validation §6.1.2 enum (values of any type) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def mixed_enum(d: Divergence) -> bool:
    """It raised "Unsupported enum type" (or, reading null as a string, an AttributeError)
    on a schema with an enum neither all strings nor all numbers (booleans count as numbers)."""
    if not any(isinstance(s.get("enum"), list) and not all(isinstance(v, str) for v in s["enum"])
               and not all(isinstance(v, (int, float)) for v in s["enum"]) for s in schemas(d.grammar.schema)):
        return False
    return (parser_raised(d, "(Exception: Unsupported enum type ")
            or parser_raised(d, "(AttributeError: 'NoneType' object has no attribute 'startswith')"))


_DISPATCHED = ("type", "anyOf", "allOf", "oneOf", "const", "$ref", "enum")


def untyped_subschemas(schema: Any) -> List[Dict[str, Any]]:
    """The subschemas (not the root) that get_parser finds nothing to dispatch on: no
    type, anyOf, allOf, oneOf, const, $ref nor enum (it raises "Unsupported type None"
    when it reaches one; `{}` as `items` it reads as any value).

    >>> untyped_subschemas({"type": "array", "items": {"properties": {"a": {"type": "string"}}}})
    [{'properties': {'a': {'type': 'string'}}}]
    >>> untyped_subschemas({"properties": {"a": {"type": "string"}}, "items": {}})
    []
    """
    found: List[Dict[str, Any]] = []

    def look(node: Dict[str, Any]) -> Dict[str, Any]:
        for k, v in node.items():
            if k in ("additionalProperties", "items") and isinstance(v, dict) and (v or k != "items") and \
                    not any(key in v for key in _DISPATCHED):
                found.append(v)
            elif k in ("properties", "definitions", "$defs") and isinstance(v, dict):
                found.extend(x for x in v.values() if isinstance(x, dict) and not any(key in x for key in _DISPATCHED))
            elif k in ("anyOf", "allOf", "oneOf") and isinstance(v, list):
                found.extend(x for x in v if isinstance(x, dict) and not any(key in x for key in _DISPATCHED))
        return node

    rewrite_schemas(schema, look)
    return found


@KNOWN_DIFFERENCES.declare(
    "untyped-subschema", "peer-bug",
    "lm-format-enforcer cannot write a subschema without type, anyOf, allOf, oneOf, const, $ref or enum "
    "(`{\"properties\": {...}}`, `{\"pattern\": ...}`, `{}` as a property's schema), which JSON Schema reads as "
    "any value under its keywords: get_parser raises \"Unsupported type None\" when it reaches one and the "
    "enforcer allows only EOS (at the root the adapter reports the schema unsupported)",
    ends_path=True,
    cites=('JSON Schema 2020-12 Validation §6.1.1 (type is optional: without it any value validates) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def untyped(d: Divergence) -> bool:
    """It raised "Unsupported type None" on a schema with a subschema it cannot dispatch
    (untyped_subschemas)."""
    return bool(untyped_subschemas(d.grammar.schema)) and parser_raised(d, "(Exception: Unsupported type None)")


def unreadable_patterns(schema: Any) -> List[str]:
    """The names of the exceptions interegular raises on the schema's string patterns, as
    lm-format-enforcer gives them to it (one `^` and one `$` cut off): ECMA-262's named
    groups `(?<name>...)`, `\\p{...}`, ...

    >>> unreadable_patterns({"properties": {"v": {"type": "string", "pattern": "^(?<a>x)$"}, "w": {"pattern": "x"}}})
    ['InvalidSyntax']
    """
    import interegular

    names = []
    for node in schemas(schema):
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            body = pattern[1:] if pattern.startswith("^") else pattern
            body = body[:-1] if body.endswith("$") else body
            try:
                interegular.parse_pattern(body)
            except Exception as e:  # noqa: BLE001 - interegular's InvalidSyntax, Unsupported, ...
                names.append(type(e).__name__)
    return names


@KNOWN_DIFFERENCES.declare(
    "pattern-syntax", "peer-bug",
    "lm-format-enforcer cannot write a string whose `pattern` interegular cannot parse (ECMA-262's named "
    "groups `(?<major>0|[1-9]\\d*)`, `\\p{L}`): RegexParser raises (InvalidSyntax, Unsupported) when the "
    "string's parser is made, and the enforcer allows only EOS",
    ends_path=True,
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation)'))
def pattern_syntax(d: Divergence) -> bool:
    """It raised an exception that interegular raises on one of the schema's patterns
    (unreadable_patterns)."""
    return any(parser_raised(d, "(%s: " % name) for name in set(unreadable_patterns(d.grammar.schema)))


def unresolved_refs(schema: Any) -> List[str]:
    """The last segments of the schema's `$ref`s that are no name in its definitions or
    $defs: get_parser resolves a reference by its last segment alone (`"#"` is `"#"`,
    `#/properties/a` is definitions["a"]).

    >>> unresolved_refs({"definitions": {"a": {}}, "items": [{"$ref": "#"}, {"$ref": "#/definitions/a"}]})
    ['#']
    """
    root = schema if isinstance(schema, dict) else {}
    table = root.get("definitions", root.get("$defs", {}))  # the first it finds (get_parser)
    known = set(table) if isinstance(table, dict) else set()
    return [ref.split("/")[-1] for node in schemas(schema) for ref in [node.get("$ref")]
            if isinstance(ref, str) and ref.split("/")[-1] not in known]


@KNOWN_DIFFERENCES.declare(
    "ref-by-last-segment", "peer-bug",
    "lm-format-enforcer resolves a `$ref` by its last segment in the root's definitions (or $defs): "
    "`{\"$ref\": \"#\"}` (the root, a recursive schema) raises KeyError '#' when it is reached, and the "
    "enforcer allows only EOS",
    ends_path=True,
    cites=('JSON Schema 2020-12 Core §8.2.3.1 $ref (a URI reference: "#" is the root schema) '
           '(https://json-schema.org/draft/2020-12/json-schema-core)'))
def unresolved_ref(d: Divergence) -> bool:
    """It raised the KeyError of an unresolved reference's last segment."""
    return any(parser_raised(d, "(KeyError: %r)" % name) for name in set(unresolved_refs(d.grammar.schema)))


@KNOWN_DIFFERENCES.declare(
    "tuple-items", "peer-bug",
    "lm-format-enforcer cannot read an `items` that is a list of schemas (draft 4's tuples) in a definition "
    "it reaches through a `$ref`: its schema model's validator raises AttributeError ('list' object has no "
    "attribute 'get') and the enforcer allows only EOS (at the root the schema is unsupported)",
    ends_path=True,
    cites=('JSON Schema draft 4 Validation §5.3.1 items (an array of schemas: a tuple) '
           '(https://json-schema.org/draft-04/json-schema-validation)'))
def tuple_items(d: Divergence) -> bool:
    """It raised its schema model's AttributeError on an `items` that is a list (a
    definition it reads only when a `$ref` reaches it)."""
    return (any(isinstance(node.get("items"), list) for node in schemas(d.grammar.schema))
            and parser_raised(d, "(AttributeError: 'list' object has no attribute 'get')"))


@KNOWN_DIFFERENCES.declare(
    "pattern-with-length", "peer-bug",
    "lm-format-enforcer cannot write a string with both a `pattern` and a minLength or maxLength: "
    "StringParsingState raises \"String schema contains both a pattern and a min/max length, which is not "
    "currently supported\" when the string's parser is made, and get_allowed_tokens raises it (the output "
    "cannot go on)",
    ends_path=True,
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation); JSON Schema '
           '2020-12 Validation §6.3.1-6.3.2 maxLength/minLength '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def pattern_with_length(d: Divergence) -> bool:
    """Its mask raised (the divergence's error) its LMFormatEnforcerException "both a
    pattern and a min/max length", which the enforcer lets through, on a schema with a
    string that has both."""
    if not any(node.get("type") == "string" and isinstance(node.get("pattern"), str)
               and ("minLength" in node or "maxLength" in node) for node in schemas(d.grammar.schema)):
        return False
    return d.error is not None and (
        "LMFormatEnforcerException: String schema contains both a pattern and a min/max length" in d.error)


def has_true_subschema(schema: Any) -> bool:
    """Does a subschema of the schema (not the root) read `true`, the boolean schema that
    every value satisfies? (`additionalProperties: true` is read as a flag, not a schema.)

    >>> has_true_subschema({"type": "array", "items": True}), has_true_subschema({"additionalProperties": True})
    (True, False)
    """
    for node in schemas(schema):
        for k, v in node.items():
            if v is True and k in ("items", "additionalItems", "contains", "not", "if", "then", "else"):
                return True
            if k in ("properties", "patternProperties", "$defs", "definitions") and isinstance(v, dict) and \
                    any(s is True for s in v.values()):
                return True
    return False


@KNOWN_DIFFERENCES.declare(
    "true-subschema", "peer-bug",
    "lm-format-enforcer cannot read the boolean schema `true` (any value) where it builds a parser for a "
    "subschema: `{\"type\": \"array\", \"items\": true}` or a property `{\"a\": true}` makes get_parser raise "
    "AttributeError ('bool' object has no attribute 'anyOf') when the walk reaches it, and the enforcer "
    "allows only EOS (at the start of an array of `items: true`, `[` is refused)",
    ends_path=True,
    cites=('JSON Schema 2020-12 Core §4.3.2 Boolean JSON Schemas ("true: always passes validation") '
           '(https://json-schema.org/draft/2020-12/json-schema-core#section-4.3.2); Core §10.3.1.2 items '
           '(its value MUST be a valid JSON Schema) (https://json-schema.org/draft/2020-12/json-schema-core)'))
def true_subschema(d: Divergence) -> bool:
    """It raised its AttributeError on a boolean schema, in a schema with a `true` subschema."""
    return has_true_subschema(d.grammar.schema) and parser_raised(
        d, "(AttributeError: 'bool' object has no attribute 'anyOf')")
