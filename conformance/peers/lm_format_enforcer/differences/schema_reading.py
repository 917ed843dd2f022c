"""lm-format-enforcer's known differences in reading a JSON schema: its JSON (whitespace,
the keywords it does not enforce, closed objects, short arrays), how its get_parser
dispatches a schema (E12, E13, E17, E19, E20) and its key order; each predicate asks
that refimpl on that reading (reading.py) explain the differing tokens."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from refimpl.errors import GrammarError

from ....differences import KnownDifferences
from ....divergence import Divergence
from ....readings.json_schemas import schemas
from ....readings.json_text import controls_next, string_so_far
from ....vectors import GrammarSpec
from ..reading import (
    DISPATCHED,
    decoded_text,
    dispatch_flags,
    explains,
    json_reading,
    json_reading_schema,
    open_objects,
    raw_escapes,
    reading_lark,
    token_reading,
    token_string,
    unlisted_required,
)
from .raised import parser_raised

KNOWN_DIFFERENCES = KnownDifferences()


@KNOWN_DIFFERENCES.declare(
    "required-outside-properties", "peer-bug",
    "lm-format-enforcer offers only the keys an object's properties name, and lets the object end only "
    "once every required key is written: with a required name the properties do not name "
    "({\"properties\": {\"a\": ...}, \"required\": [\"a\", \"b\"]}) the object can never be finished "
    "(after {\"a\": 1 neither `,` nor `}`: only more digits and whitespace), where JSON Schema takes `b` "
    "as an additional property",
    cites=('JSON Schema 2020-12 Validation §6.5.3 required, and Core §10.3.2.3 additionalProperties (absent: '
           'any other property is allowed) (https://json-schema.org/draft/2020-12/json-schema-validation, '
           'https://json-schema.org/draft/2020-12/json-schema-core)'))
def required_outside_properties(d: Divergence) -> bool:
    """Some object schema it reads has required names its properties do not name
    (unlisted_required); its reading (json_reading: only the listed keys, the object never
    ending) answers every differing token as it did; and a token only refimpl allows goes
    on to write such a name (refimpl's reading with them listed as properties allows it:
    the comma before the key, the key)."""
    if d.grammar.kind != "json_schema" or d.grammar.options or not d.only_refimpl or not any(
            unlisted_required(s) for s in schemas(json_reading_schema(d.grammar.schema))):
        return False
    if not explains(d, json_reading(d)):
        return False
    listed = token_reading(d, GrammarSpec("lark", reading_lark(d.grammar.schema, unlisted_listed=True)),
                           eos_when_dead=True)
    return any(listed(t) for t in d.only_refimpl)


@KNOWN_DIFFERENCES.declare(
    "json-reading", "semantic",
    "lm-format-enforcer's JSON: up to 12 whitespace characters in a row between tokens and also "
    "before and after the value; minimum, maximum, exclusiveMinimum/Maximum, multipleOf, format, "
    "min/maxProperties and uniqueItems not enforced; objects with properties closed, objects without "
    "open whatever additionalProperties says; arrays of at most 20 items unless the schema bounds "
    "them; no tuples (prefixItems, `items: false` and `maxItems: 0` not read); the differing tokens "
    "are exactly those refimpl answers differently on that reading (json_reading)")
def json_reading_explains(d: Divergence) -> bool:
    return explains(d, json_reading(d))


@KNOWN_DIFFERENCES.declare(
    "literal-items-count", "peer-bug",
    "lm-format-enforcer counts an array's `true`, `false` or `null` item more than once toward "
    "minItems in some places: with {\"type\": \"array\", \"minItems\": 3} it lets `[true, 1` and "
    "`[null, null` end with `]` (found by the `types` group, 2026-11-28; docs/findings.md, E27)",
    cites=('JSON Schema 2020-12 Validation §6.4.2 minItems: "An array instance is valid against minItems if its '
           'size is greater than, or equal to, the value of this keyword" '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def literal_items_count(d: Divergence) -> bool:
    """Only the peer allows a token that ends an array (`]` first), the text so far holds
    an item true, false or null, and some subschema has a minItems."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.error is not None:
        return False
    if not all(d.vocab.tokens[t].lstrip(b" \t\n\r").startswith(b"]") for t in d.only_engine):
        return False
    return (re.search(r"[\[,]\s*(true|false|null)\s*,", d.text().decode("utf-8", "replace")) is not None
            and any(isinstance(x, dict) and "minItems" in x for x in schemas(d.grammar.schema)))


def _dispatch_explains(d: Divergence, flag: str) -> bool:
    """Some subschema is one the flag acts on (DISPATCHED), and refimpl on
    lm-format-enforcer's reading explains the differing tokens with json_reading_schema's
    `flag` set, not without (the other
    flags set where they come before it: type_lists, one_of_objects), or cannot compile
    the reading without it."""
    if d.grammar.kind != "json_schema" or not any(DISPATCHED[flag](s) for s in schemas(d.grammar.schema)):
        return False
    others = {"type_lists": True} if flag == "one_of_objects" else {}
    if not explains(d, json_reading(d, **dict(others, **{flag: True}))):
        return False
    try:
        return not explains(d, json_reading(d, **others))
    except GrammarError:  # refimpl cannot compile the reading without the flag: it explains nothing
        return True


@KNOWN_DIFFERENCES.declare(
    "one-of-objects", "peer-bug",
    "lm-format-enforcer reads every oneOf option as an object's schema (get_parser merges each into the "
    "parent's object): {\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"string\"}]} takes any object and "
    "neither null nor a string; a `$ref` option is any object",
    cites='JSON Schema 2020-12 Core §10.2.1.3 oneOf (https://json-schema.org/draft/2020-12/json-schema-core)')
def one_of_objects(d: Divergence) -> bool:
    """A oneOf with an option that is no object's schema, and the reading explains the
    differing tokens only with every option an object (dispatch_reading)."""
    return _dispatch_explains(d, "one_of_objects")


@KNOWN_DIFFERENCES.declare(
    "type-list", "peer-bug",
    "lm-format-enforcer reads a schema whose type is a list as a choice of the bare types, dropping its other "
    "keywords: {\"type\": [\"object\", \"null\"], \"properties\": ..., \"required\": [\"a\"]} takes any "
    "object, `{}` too",
    cites=('JSON Schema 2020-12 Validation §6.1.1 type (an array of types) with every other keyword applied '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def type_list(d: Divergence) -> bool:
    """A type list, and the reading explains the differing tokens only with type lists as
    bare types (dispatch_reading)."""
    return _dispatch_explains(d, "type_lists")


@KNOWN_DIFFERENCES.declare(
    "whole-string-pattern", "peer-bug",
    "lm-format-enforcer matches a string's `pattern` against the whole string (StringParsingState cuts one "
    "`^` and one `$` off, RegexParser matches to the end); JSON Schema's patterns are unanchored searches: "
    "`^https?://` allows any text after `https://`, lm-format-enforcer only the closing quote",
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation)'))
def whole_patterns(d: Divergence) -> bool:
    """A pattern, and the reading explains the differing tokens only with patterns matching
    the whole string (whole_pattern)."""
    return _dispatch_explains(d, "whole_patterns")


@KNOWN_DIFFERENCES.declare(
    "ref-beside-keywords", "peer-bug",
    "lm-format-enforcer follows a `$ref` only in a schema without type, anyOf, allOf, const and oneOf "
    "(get_parser tries those first): {\"type\": \"object\", \"$ref\": \"#/definitions/c\", \"properties\": "
    "{\"p\": ...}} is read as its own properties alone, the definition's keys refused",
    cites=('JSON Schema 2020-12 Core §8.2.3.1 $ref, applied with its sibling keywords '
           '(https://json-schema.org/draft/2020-12/json-schema-core)'))
def ignored_refs(d: Divergence) -> bool:
    """A `$ref` get_parser does not follow, and the reading explains the differing tokens
    only without it (ref_ignored)."""
    return _dispatch_explains(d, "ignored_refs")


@KNOWN_DIFFERENCES.declare(
    "all-of-last-part", "peer-bug",
    "lm-format-enforcer reads an allOf as its last part given the other parts' properties and required keys "
    "(_merge_object_schemas): every other keyword of the other parts is dropped, a `$ref` part's definition "
    "too ({\"allOf\": [{\"$ref\": \"#/definitions/base\"}, {\"type\": \"object\", \"properties\": ...}]} "
    "is the second part alone)",
    cites=('JSON Schema 2020-12 Core §10.2.1.1 allOf: valid against every subschema '
           '(https://json-schema.org/draft/2020-12/json-schema-core)'))
def all_of_parts(d: Divergence) -> bool:
    """An allOf with a part that is no object's schema, and the reading explains the
    differing tokens only with that part reduced to its properties and required keys."""
    return _dispatch_explains(d, "all_of_parts")


def key_order_readings(d: Divergence, t: int, limit: int = 40, raw_strings: bool = False) -> Optional[bool]:
    """Does refimpl on lm-format-enforcer's reading allow token t once the properties of
    the object the text ends inside are reordered: the keys written so far first, in
    their order, then the key the token writes (where it leaves the object open without
    beginning a key, as `",` does, any property not written), then the others? Every
    object schema holding those keys is tried, up to `limit` readings (None beyond); one
    that other objects may share (a definition, array items) as a choice of its order and
    the new one, so that each object takes its own (MaskBench's o29394: the second item
    of an array);
    on the reading, then (where it does not allow t) on the schema as get_parser
    dispatches it (dispatch_flags: an allOf read as its last part, say, whose keys then
    come in any order — two differences on one token). With `raw_strings`, keys as it
    walks them (json_reading_schema's flag)."""
    dispatched = dispatch_flags(d.grammar.schema)
    readings: List[Dict[str, bool]] = [{}] + ([dispatched] if dispatched else [])
    for flags in readings:
        try:
            found = _key_orders(d, t, limit, dict(flags, raw_strings=raw_strings))
        except GrammarError:  # refimpl cannot compile this reading (an unsatisfiable allOf, say)
            continue
        if found is not False:  # allowed, or more orders than `limit`
            return found
    return False


def _key_orders(d: Divergence, t: int, limit: int, flags: Dict[str, bool]) -> Optional[bool]:
    """key_order_readings on json_reading_schema's reading with `flags`."""
    raw_strings = flags.get("raw_strings", False)
    text = decoded_text(d.text())
    read = raw_escapes if raw_strings else (lambda x: x)
    before = open_objects(read(text))
    if not before:
        return False
    at = list(before)[-1]
    written = before[at][0]
    after = open_objects(read(text + token_string(d.vocab.tokens[t])), closed=True)
    if at not in after:
        return False
    keys, partial = after[at]
    if len(keys) > len(written):
        key, whole = keys[len(written)], True
    elif partial is not None:
        key, whole = partial, False
    elif at in open_objects(read(text + token_string(d.vocab.tokens[t]))):
        key, whole = "", False  # the object stays open (`,`, `",`, whitespace): any property not written may follow
    else:
        return False
    count = 0
    for index, node in enumerate(schemas(json_reading_schema(d.grammar.schema, **flags))):
        props = node.get("properties")
        if not isinstance(props, dict) or not set(written) <= set(props):
            continue
        for p in props:
            if p in written or (p != key if whole else not p.startswith(key)):
                continue
            count += 1
            if count > limit:
                return None
            variant = json_reading_schema(d.grammar.schema, **flags)
            target = list(schemas(variant))[index]
            order = written + [p] + [k for k in target["properties"] if k not in written and k != p]
            reordered = dict(target, properties={k: target["properties"][k] for k in order})
            if target is variant:
                variant = reordered
            else:  # a schema several objects may share ($ref, items): each takes either order
                original = dict(target)
                target.clear()
                target["anyOf"] = [original, reordered]
            reading = json_reading(Divergence(GrammarSpec("json_schema", schema=variant), d.vocab, d.prefix,
                                              d.step, [t], []), **flags)
            if reading is not None and reading(t):
                return True
    return False


@KNOWN_DIFFERENCES.declare(
    "any-key-order", "semantic",
    "lm-format-enforcer lets an object's properties come in any order; maskref (as llguidance) "
    "in the schema's order")
def any_key_order(d: Divergence) -> bool:
    """Only lm-format-enforcer allows the differing tokens, and refimpl on its reading
    (json_reading) allows each once the properties of the object the text ends inside
    come in another order (key_order_readings): the keys written so far, then the one
    the token writes."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.grammar.options:
        return False
    if d.error is not None or d.refused is not None or d.after_eos:
        return False
    return all(key_order_readings(d, t) for t in d.only_engine)


def _walked(schema: Any) -> List[str]:
    """The property names, required keys, string enum values and string consts of the
    schema's subschemas: the strings lm-format-enforcer walks unescaped."""
    words: List[Any] = []
    for node in schemas(schema):
        words += list(node.get("properties") or ()) if isinstance(node.get("properties"), dict) else []
        for k in ("required", "enum"):
            words += node.get(k) if isinstance(node.get(k), list) else []
        words.append(node.get("const"))
    return [w for w in words if isinstance(w, str)]


def _walked_strings(schema: Any) -> bool:
    """Has some subschema a property name, a required key, a string enum value or a
    string const holding `"` or `\\`?"""
    return any('"' in w or "\\" in w for w in _walked(schema))


def _raw_control_next(d: Divergence) -> bool:
    """The text ends inside a string whose content so far is followed, in a string
    lm-format-enforcer walks unescaped (_walked), by a control character: every token only
    refimpl allows begins an escape (of that character: lm-format-enforcer has only its raw
    byte), and every token only lm-format-enforcer allows begins with that raw character."""
    so_far = string_so_far(d.text())
    if so_far is None or not d.only_refimpl or d.error is not None or d.refused is not None:
        return False
    following = controls_next(so_far, _walked(d.grammar.schema))
    return bool(following) and all(d.vocab.tokens[t][:1] == b"\\" for t in d.only_refimpl) and all(
        d.vocab.tokens[t][:1].decode("latin-1") in following for t in d.only_engine)


@KNOWN_DIFFERENCES.declare(
    "raw-allowed-strings", "peer-bug",
    "lm-format-enforcer walks a property name, a string enum value or a string const character by "
    "character, unescaped: a `\"` in it closes the string there (with the property `a\\\"b`, the key "
    "`a` is allowed and `a\\\\\"b` refused) and a `\\\\` in it is any escape (the key `\\\\` is written "
    "`\\\\\"`, `\\\\/`, `\\\\n`, `\\\\u0041`, ..., JSON's `\\\\\\\\` among them); where a key so closed "
    "names no property, its parser raises KeyError and it allows only EOS; a control character in it "
    "is written raw only (the const `hello\\u0000there` after `\"hello` allows a raw NUL, not `\\\\`)",
    ends_path=True)
def raw_allowed_strings(d: Divergence) -> bool:
    """A schema with such a name or value, and refimpl on the reading with them walked so
    (json_reading's raw_strings) answers as lm-format-enforcer on every differing token,
    the properties of the object the text ends inside in any order where a token needs it
    (any-key-order: both act on one key); or its parser raised KeyError on a property name
    cut at its `"`; or a control character comes next in such a string, which it offers raw
    only (_raw_control_next)."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return False
    if _raw_control_next(d):
        return True
    if not _walked_strings(d.grammar.schema):
        return False
    cut = {p.split('"', 1)[0] for node in schemas(d.grammar.schema) if isinstance(node.get("properties"), dict)
           for p in node["properties"] if '"' in p}
    if any(parser_raised(d, "(KeyError: %r)" % k) for k in cut):
        return True
    reading = json_reading(d, raw_strings=True)
    if reading is None or d.error is not None or d.refused is not None or d.after_eos or not d.differing():
        return False

    def allows(t: int) -> Optional[bool]:
        if reading(t):
            return True
        return t not in d.vocab.eos_token_ids and key_order_readings(d, t, raw_strings=True)

    return all(allows(t) for t in d.only_engine) and all(allows(t) is False for t in d.only_refimpl)
