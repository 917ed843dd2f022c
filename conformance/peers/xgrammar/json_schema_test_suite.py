"""xgrammar 0.2.9's known differences first met on the JSON-Schema-Test-Suite
(conformance/json_schema_test_suite.py; docs/findings.md, X17), kept apart from
differences.py, which appends them to its list (tried last, after MaskBench's).

Four are readings of the schema (reading.py: NON_POINTER_REF, UNEVALUATED_FALSE,
PATTERN_ADDITIONAL, ESCAPED_NAMES, last in READINGS), so they combine with the others:
a `$ref` that is no JSON pointer is any value; `unevaluatedProperties: false` is read as
absent; beside `patternProperties` and `properties` the additional properties' key is any
key; a named key spelled with an escape is an additional key too. The named keys' raw
text also lets a raw control character, or an invalid escape, into a key
(`raw_character_of_named_key`), and a `const` or `enum` string has one spelling
(`const_one_spelling`).

>>> from conformance.vectors import GrammarSpec, load_builtin
>>> spec = GrammarSpec("json_schema", schema={"enum": ["foo\\nbar"]})
>>> const_one_spelling(Divergence(spec, load_builtin("bytes"), list(b'"foo\\\\'), 5, [], [ord("u")]))
True
"""
from __future__ import annotations

from typing import List

from ...differences import KnownDifferences
from ...divergence import Divergence
from ...readings.json_schemas import schemas
from ...readings.json_text import (
    JSON_WHITESPACE,
    controls_next,
    decoded_chars,
    escape_in_string,
    in_key,
    open_string,
    puts,
    string_so_far,
)
from .reading import ESCAPED_NAMES, NON_POINTER_REF, PATTERN_ADDITIONAL, UNEVALUATED_FALSE, reading_explains

JSON_SCHEMA_TEST_SUITE_DIFFERENCES = KnownDifferences()

_CORE = "https://json-schema.org/draft/2020-12/json-schema-core"
_JSON = "https://www.rfc-editor.org/rfc/rfc8259"


JSON_SCHEMA_TEST_SUITE_DIFFERENCES.declare(
    "non-pointer-ref-as-any", "peer-bug",
    "xgrammar 0.2.9 resolves a `$ref` only as a JSON pointer into the schema (`#`, `#/...`); any other "
    "— an `$anchor`'s `#foo`, an `$id`'s URI (absolute, relative, a URN), with or without a pointer "
    "after it — it reads as any value, without an error, the keywords beside it unread: "
    "{\"$ref\": \"#foo\", \"$defs\": {\"A\": {\"$anchor\": \"foo\", \"type\": \"integer\"}}} allows "
    "\"a\" (docs/findings.md, X17)",
    cites=('JSON Schema 2020-12 Core §8.2.3.1 $ref (a URI-reference resolved against the current base URI), '
           '§8.2.1 $id and §8.2.2 $anchor (the identifiers it resolves to) (%s)' % _CORE)
)(reading_explains(NON_POINTER_REF))


JSON_SCHEMA_TEST_SUITE_DIFFERENCES.declare(
    "unevaluated-properties-false-unread", "peer-bug",
    "without strict mode, xgrammar 0.2.9 reads `unevaluatedProperties: false` as absent (the object "
    "stays open; a schema there is read as additionalProperties): {\"type\": \"object\", \"properties\": "
    "{\"a\": {}}, \"unevaluatedProperties\": false} allows {\"b\": 1} (docs/findings.md, X17)",
    cites=('JSON Schema 2020-12 Core §11.3 unevaluatedProperties (false: no property that no adjacent or '
           'in-place applicator evaluated) (%s)' % _CORE)
)(reading_explains(UNEVALUATED_FALSE))


JSON_SCHEMA_TEST_SUITE_DIFFERENCES.declare(
    "additional-keys-beside-patterns", "peer-bug",
    "in an object with both `properties` and `patternProperties`, xgrammar 0.2.9's additional "
    "properties take any key, the named keys and the patterns' keys too: a named key's value may be "
    "the additional schema (or a pattern's that matches the whole key), a pattern key's the additional "
    "schema: {\"properties\": {\"foo\": {\"type\": \"array\"}}, \"patternProperties\": {\"x\": {}}, "
    "\"additionalProperties\": {\"type\": \"integer\"}} allows {\"foo\": 1} (docs/findings.md, X17)",
    cites=('JSON Schema 2020-12 Core §10.3.2.1 properties, §10.3.2.2 patternProperties and §10.3.2.3 '
           'additionalProperties (only the properties neither of the others matched) (%s)' % _CORE)
)(reading_explains(PATTERN_ADDITIONAL))


def _named_keys(schema: object) -> List[str]:
    return [k for s in schemas(schema) if isinstance(s.get("properties"), dict) for k in s["properties"]]


#: the bytes that may follow a backslash in maskref's JSON strings
_ESCAPES = b'"\\bfnrtu'


def raw_character_of_named_key(d: Divergence) -> bool:
    """The text ends inside an object key that xgrammar's key trie reads as the raw text of
    a named key of the schema, and only the peer allows the differing tokens: each begins
    with the control character that follows in such a key (written raw), or, where the key
    so far ends with a backslash that is a named key's own (`foo\\bar`'s), with anything but
    an escape's character (the trie goes on past the raw backslash: an invalid escape), or,
    where that backslash is followed by a quote (`{"foo\\"`), with JSON whitespace (the trie
    read the quote as the end of the key `foo\\`, and whitespace may follow a key)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    text = d.text()
    raw = string_so_far(text)
    if raw is None or not in_key(text):
        return False
    keys = _named_keys(d.grammar.schema)
    named = [k for k in keys if k.startswith(raw)]
    firsts = [d.vocab.tokens[t][:1] for t in d.only_engine]
    if raw.endswith("\\") and named:
        return all(b and b not in _ESCAPES for b in firsts)
    if raw.endswith('\\"') and any(k.startswith(raw[:-1]) for k in keys):
        return all(b and b in JSON_WHITESPACE for b in firsts)
    following = controls_next(raw, named)
    return bool(following) and all(b.decode("latin-1") in following for b in firsts)


@JSON_SCHEMA_TEST_SUITE_DIFFERENCES.declare(
    "named-keys-by-raw-text", "peer-bug",
    "xgrammar 0.2.9 leaves the named keys out of its additional properties' key trie by their raw "
    "text, not their JSON spelling: a named key spelled with an escape (`foo\\\\\"bar`) is an additional "
    "key too (its value the additional schema or its own), and where a named key has a control "
    "character or a backslash the trie takes it raw (invalid JSON): with the property `foo\\nbar`, "
    "after `{\"foo` a raw newline; with `foo\\\\bar`, after `{\"foo\\\\` any character, an invalid "
    "escape (the key-without-escapes trie's, docs/findings.md, X17), and after `{\"foo\\\\\"` the key "
    "ended: whitespace, a raw tab or newline inside the JSON string",
    cites=('RFC 8259 (JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be '
           'escaped (%s) (object keys are strings); JSON Schema 2020-12 Core §10.3.2.3 additionalProperties '
           '(the properties `properties` did not match) (%s)' % (_JSON, _CORE)))
def named_keys_by_raw_text(d: Divergence) -> bool:
    """The peer answers as refimpl on the schema with each escaped named key also an
    additional one (ESCAPED_NAMES), or allows a named key's raw character
    (raw_character_of_named_key)."""
    return raw_character_of_named_key(d) or reading_explains(ESCAPED_NAMES)(d)


@JSON_SCHEMA_TEST_SUITE_DIFFERENCES.declare(
    "const-one-spelling", "peer-bug",
    "xgrammar 0.2.9 writes a `const` or `enum` string in one JSON spelling (`\\\\n`, `\\\\\"`, "
    "`\\\\u0001`): the other spellings of the same string are refused: with {\"enum\": [\"foo\\nbar\"]} "
    "after `\"foo\\\\` only `n`, not `u` (`\\\\u000a`) (docs/findings.md, X17)",
    cites=('RFC 8259 (JSON) §7 Strings: any character may be escaped (%s); JSON Schema 2020-12 Validation '
           '§6.1.2 enum, §6.1.3 const (equal values, whatever their spelling) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)' % _JSON))
def const_one_spelling(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens; each writes an escape inside a string, and
    the string so far (escapes decoded) begins a `const` or `enum` string of the schema."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    values = [v for s in schemas(d.grammar.schema)
              for v in ([s["const"]] if "const" in s else []) + (s["enum"] if isinstance(s.get("enum"), list) else [])
              if isinstance(v, str)]
    text = d.text()
    start = open_string(text)
    if not values or start is None:
        return False
    for t in d.only_refimpl:
        token = d.vocab.tokens[t]
        so_far = "".join(c for c, _ in decoded_chars((text + token)[start - 1:]))
        if not puts(text, token, escape_in_string) or not any(v.startswith(so_far) for v in values):
            return False
    return True
