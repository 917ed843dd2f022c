"""lm-format-enforcer's reading of token bytes, regexes and JSON schemas, on refimpl, for
the predicates of its known differences.

lm-format-enforcer matches decoded *strings*: the engine gives it each ordinary token as
its bytes decoded as UTF-8 with U+FFFD for what is not UTF-8 (`token_string`), and a
decoder that holds back an incomplete final character (`decoded_text`). Its regexes are
interegular's (ASCII classes; `.` and negated classes produce only its tokenizer
alphabet); its JSON is its JsonSchemaParser's (`json_reading_schema`, `reading_lark`).
A reading answers, token by token, what lm-format-enforcer allows after a divergence's
prefix (`regex_reading`, `json_reading`, `string_reading`), and `explains` asks that it
give the peer's answer on every differing token.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from refimpl import Vocabulary
from refimpl.frontends.jsonschema import SUBSCHEMA_KEYWORDS
from refimpl.recognition.recognizer import Recognizer

from ...divergence import Divergence, compiled
from ...readings.json_schemas import rewrite_schemas, schemas
from ...readings.json_text import open_string, string_chars
from ...readings.regex_text import ASCII_CLASSES, write_out_classes
from ...vectors import GrammarSpec, vocab_hash

# ---------------------------------------------------------------------------- tokens as strings


REPLACEMENT = "\ufffd"


def token_string(data: bytes) -> str:
    """The string lm-format-enforcer is given for a token: its bytes as UTF-8, each
    maximal invalid part U+FFFD (Python's and HF's `errors="replace"`).

    >>> token_string(b"a"), token_string(b"\\xc3"), token_string(b"\\xc3\\xa9"), token_string(b"a\\xffb")
    ('a', '\\ufffd', 'é', 'a\\ufffdb')
    """
    return data.decode("utf-8", "replace")


def decoded_text(data: bytes) -> str:
    """The decoder's answer for a list of tokens whose bytes are `data`: `token_string`
    without the U+FFFDs at its end (an incomplete last character decodes to nothing yet,
    as the transformers integration's `_decode_function` does).

    >>> decoded_text(b"a\\xc3"), decoded_text(b"a\\xc3\\xa9"), decoded_text(b"\\xffa")
    ('a', 'aé', '\\ufffda')
    """
    return token_string(data).rstrip(REPLACEMENT)


# -------------------------------------------------------------------------------------- regexes


def ascii_classes(regex: str) -> Optional[str]:
    """The regex with interegular's ASCII meaning of \\d \\w \\s \\D \\W \\S written out
    (maskref's are Unicode); None where that cannot be written (\\D inside a class).

    >>> ascii_classes(r"\\d+[\\w.]\\S"), ascii_classes(r"\\\\d"), ascii_classes(r"[\\D]")
    ('[0-9]+[0-9A-Za-z_.][^\\\\t-\\\\r ]', '\\\\\\\\d', None)
    """
    return write_out_classes(regex, ASCII_CLASSES)


def _rust_class(chars: FrozenSet[str], negated: bool) -> str:
    """A class of these characters (negated: of every other one) in Rust's syntax."""
    points = sorted(ord(c) for c in chars)
    if not points:
        return "[\\x{0}-\\x{10FFFF}]" if negated else "[\\x{0}&&[^\\x{0}]]"
    ranges: List[List[int]] = []
    for p in points:
        if ranges and ranges[-1][1] + 1 == p:
            ranges[-1][1] = p
        else:
            ranges.append([p, p])
    body = "".join("\\x{%X}" % lo if lo == hi else "\\x{%X}-\\x{%X}" % (lo, hi) for lo, hi in ranges)
    return "[%s%s]" % ("^" if negated else "", body)


def interegular_regex(regex: str, rust_folding: bool = False) -> Optional[str]:
    """The regex as interegular parses it (lm-format-enforcer's RegexParser), written in
    the Rust syntax refimpl reads; None where interegular refuses it or where it reads
    what that syntax cannot say (a lookaround, the `m` flag). Its reading is Python's
    `re` syntax as interegular has it: classes do not nest, so `[[:alpha:]]` is the class
    of `[:alph` followed by `]`, and `&&`, `~~` in a class are characters; `\\d \\w \\s` are
    ASCII; and under `(?i)` a character matches itself, its str.lower() and its
    str.upper() where each is one character (_CharGroup.to_fsm), so `(?i)k` does not
    match U+212A KELVIN SIGN, as Python's `re` and Rust do. With `rust_folding`, `(?i)`
    folds as Rust does (refimpl's `(?i:...)`) instead.

    >>> print(interegular_regex("(?i)[[:k:]]"))
    (?:[\\x{3A}\\x{4B}\\x{5B}\\x{6B}][\\x{5D}])
    >>> print(interegular_regex("(?i)[[:k:]]", rust_folding=True))
    (?:(?i:[\\x{3A}\\x{5B}\\x{6B}])(?i:[\\x{5D}]))
    """
    from interegular import patterns as ip

    try:
        tree = ip.parse_pattern(regex)
    except Exception:  # noqa: BLE001 - interegular refuses it: lm-format-enforcer cannot run it
        return None

    def write(node: Any, flags: Any) -> str:
        if isinstance(node, ip.Pattern):
            flags = ip._combine_flags(flags, node.added_flags, node.removed_flags)
            return "(?:%s)" % "|".join(write(o, flags) for o in node.options)
        if isinstance(node, ip._Concatenation):
            return "".join(write(p, flags) for p in node.parts)
        if isinstance(node, ip._Repeated):
            return "(?:%s){%d,%s}" % (write(node.base, flags), node.min, "" if node.max is None else node.max)
        if flags & ip.REFlags.MULTILINE:
            raise ValueError("the m flag")
        if node is ip._EMPTY:
            return ""
        if node is ip._DOT:
            return "[\\x{0}-\\x{10FFFF}]" if flags & ip.REFlags.SINGLE_LINE else "[^\\n]"
        if isinstance(node, ip._CharGroup):
            if not flags & ip.REFlags.CASE_INSENSITIVE:
                return _rust_class(node.chars, node.negated)
            if rust_folding:
                return "(?i:%s)" % _rust_class(node.chars, node.negated)
            folded = {f for c in node.chars for f in (c, c.lower(), c.upper()) if len(f) == 1}
            return _rust_class(frozenset(folded), node.negated)
        raise ValueError("%s is not read" % type(node).__name__)  # a lookaround

    try:
        return write(tree, ip.REFlags(0))
    except ValueError:
        return None


_ALPHABETS: Dict[str, FrozenSet[str]] = {}


def tokenizer_alphabet(vocab: Vocabulary) -> FrozenSet[str]:
    """The characters that begin some ordinary token's string: lm-format-enforcer's
    alphabet, the only characters its `.` and negated classes produce while walking its
    prefix tree (TokenEnforcerTokenizerData.tokenizer_alphabet, RegexParser's
    anything_else_characters). Kept per vocabulary (by its content)."""
    key = vocab_hash(vocab)
    if key not in _ALPHABETS:
        if len(_ALPHABETS) > 8:
            _ALPHABETS.clear()
        _ALPHABETS[key] = frozenset(token_string(b)[0] for t, b in enumerate(vocab.tokens)
                                    if b and t not in vocab.special_token_ids and t not in vocab.eos_token_ids)
    return _ALPHABETS[key]


def named_characters(regex: str) -> FrozenSet[str]:
    """The characters interegular's automaton of the regex names one by one (the others
    are its `anything_else`)."""
    import interegular
    from interegular.fsm import anything_else

    return frozenset(c for c in interegular.parse_pattern(regex).to_fsm().alphabet.keys() if c != anything_else)


def alive(spec: GrammarSpec, data: bytes) -> Optional[Recognizer]:
    """refimpl's recognizer after `data`, or None where the grammar cannot go on."""
    g = compiled(spec)
    r = Recognizer(g.compiled, g.limits)
    return r if r.consume_bytes(data) else None


def regex_reading(d: Divergence, ascii: bool = True, alphabet: bool = True, syntax: bool = False,
                  rust_folding: bool = False) -> Optional[Callable[[int], bool]]:
    """Which tokens lm-format-enforcer allows after the divergence's prefix, by refimpl
    on its reading: the parser has read the decoded text (`decoded_text`), a token is
    offered as its string (`token_string`, an empty one always allowed), with `ascii`
    interegular's ASCII classes, with `alphabet` no character after a token's first that
    is outside the tokenizer alphabet and not named by the regex; EOS where the regex
    accepts the text or is dead on it (RegexParser.can_end). With `syntax`, the regex is
    read as interegular parses it (interegular_regex, with `rust_folding`; its classes are
    ASCII whatever `ascii` says); without, as Rust syntax. None where the regex cannot be
    read so."""
    regex: Optional[str] = d.grammar.source
    if d.grammar.kind != "regex" or regex is None:
        return None
    if syntax:
        regex = interegular_regex(regex, rust_folding)
        if regex is None:
            return None
    elif ascii:
        regex = ascii_classes(regex)
        if regex is None:
            return None
    letters = tokenizer_alphabet(d.vocab)
    named = named_characters(d.grammar.source) if alphabet else frozenset()

    def offered(s: str) -> bool:
        return not alphabet or all(c in letters or c in named for c in s[1:])

    return token_reading(d, GrammarSpec("regex", regex), eos_when_dead=True, offered=offered)


def token_reading(d: Divergence, spec: GrammarSpec, eos_when_dead: bool, offered: Callable[[str], bool] = lambda s: True,
                  read: Callable[[str], bytes] = lambda text: text.encode("utf-8")) -> Callable[[int], bool]:
    """Which tokens refimpl on `spec` allows after the divergence's prefix, read as
    lm-format-enforcer reads tokens: the decoded text so far (`decoded_text`), each token
    offered as its string (`token_string`; an empty one always allowed, one `offered`
    refuses never), `read` turning text into the bytes refimpl reads; EOS where `spec`
    accepts the text, or with `eos_when_dead` where it cannot go on either."""
    text = decoded_text(d.text())
    state = alive(spec, read(text))

    def allows(t: int) -> bool:
        if t in d.vocab.eos_token_ids:
            return (state is None and eos_when_dead) or (state is not None and state.is_accepting())
        s = token_string(d.vocab.tokens[t])
        if not s:
            return True
        return state is not None and offered(s) and alive(spec, read(text + s)) is not None

    return allows


# --------------------------------------------------------------------------------- JSON schemas


#: keywords lm-format-enforcer's JsonSchemaParser does not enforce (get_parser never reads them)
IGNORED_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format",
                    "minProperties", "maxProperties", "uniqueItems", "not", "if", "then", "else",
                    "dependencies", "dependentRequired", "dependentSchemas", "propertyNames",
                    "patternProperties", "contains", "minContains", "maxContains", "unevaluatedProperties",
                    "unevaluatedItems")
#: whitespace lm-format-enforcer allows in a row (CharacterLevelParserConfig.max_consecutive_whitespaces)
MAX_WHITESPACE = 12
MAX_ARRAY = 20  # max_json_array_length: the arrays' maxItems unless the schema says otherwise
#: keywords whose value is data
_VALUES = ("enum", "const", "required", "default", "examples")


def object_schema(node: Dict[str, Any]) -> bool:
    """Is the schema one that JSON Schema itself reads as (only) an object's: type object,
    or properties, required or additionalProperties without a type?"""
    return node.get("type") == "object" or ("type" not in node and any(
        k in node for k in ("properties", "required", "additionalProperties")))


def _merged_option(base: Dict[str, Any], option: Dict[str, Any]) -> Dict[str, Any]:
    """A oneOf option as lm-format-enforcer writes it (_merge_object_schemas, then
    ObjectParsingState): an object with the option's properties and the base's it lacks
    and both's required keys; without properties, any keys, each value the option's
    additionalProperties schema when it has one."""
    props = dict(base.get("properties") or {})
    props.update(option.get("properties") or {})
    required = [k for k in list(base.get("required") or []) + list(option.get("required") or [])
                if isinstance(k, str)]
    out: Dict[str, Any] = {"type": "object", "required": sorted(set(required), key=required.index)}
    if isinstance(option.get("properties"), dict):
        out["properties"] = props
    elif isinstance(option.get("additionalProperties"), dict):
        out["additionalProperties"] = option["additionalProperties"]
    return out


def whole_pattern(pattern: str) -> Optional[str]:
    """A string's pattern as lm-format-enforcer matches it: one leading `^` and one
    trailing `$` cut off (StringParsingState), then the whole string matched (RegexParser);
    None where the cut leaves a dangling backslash.

    >>> whole_pattern("^https?://"), whole_pattern("a|b$"), whole_pattern("a\\\\$")
    ('^(?:https?://)$', '^(?:a|b)$', None)
    """
    body = pattern[1:] if pattern.startswith("^") else pattern
    body = body[:-1] if body.endswith("$") else body
    if (len(body) - len(body.rstrip("\\"))) % 2:
        return None
    return "^(?:%s)$" % body


def ref_ignored(node: Dict[str, Any]) -> bool:
    """Does get_parser leave the schema's `$ref` unread (it follows one only where the
    schema has no type, and no anyOf, allOf, const or oneOf, which come first)?"""
    return "$ref" in node and any(k in node for k in ("type", "anyOf", "allOf", "const", "oneOf"))


#: the schemas each flag of dispatch_reading (and json_reading_schema) acts on
DISPATCHED: Dict[str, Callable[[Dict[str, Any]], bool]] = {
    "one_of_objects": lambda s: isinstance(s.get("oneOf"), list) and any(
        isinstance(o, dict) and not object_schema(o) for o in s["oneOf"]),
    "type_lists": lambda s: isinstance(s.get("type"), list),
    "whole_patterns": lambda s: isinstance(s.get("pattern"), str),
    "ignored_refs": lambda s: ref_ignored(s),
    "all_of_parts": lambda s: isinstance(s.get("allOf"), list) and any(
        isinstance(o, dict) and not object_schema(o) for o in s["allOf"]),
}


def dispatch_flags(schema: Any) -> Dict[str, bool]:
    """The flags of dispatch_reading whose schemas this schema has: how get_parser reads
    it, for a reading that other known differences then act on (their composition).

    >>> dispatch_flags({"type": "object", "oneOf": [{"$ref": "#/definitions/a"}]})
    {'one_of_objects': True}
    """
    return {flag: True for flag, applies in DISPATCHED.items() if any(applies(s) for s in schemas(schema))}


def dispatch_reading(node: Dict[str, Any], one_of_objects: bool = False, type_lists: bool = False,
                     whole_patterns: bool = False, ignored_refs: bool = False,
                     all_of_parts: bool = False) -> Dict[str, Any]:
    """A schema object as lm-format-enforcer's get_parser reads some of its keywords (it
    looks at anyOf, allOf, const, type string, oneOf, type object, $ref, enum, the other
    types, type lists, in that order, and uses the first present): an `allOf` of objects'
    schemas it reaches is one object, the last part with the others' properties and
    required keys (`_merge_object_schemas`; the schema's other keywords left out); a
    `oneOf` it reaches is a choice (never exclusive) of objects (with `all_of_parts` any
    allOf so, its parts that are no objects' schemas, a `$ref` say, reduced to their
    properties and required keys), each option merged with
    the base's properties
    and required keys (_merged_option); with `one_of_objects` every option so, as it
    does, else only options that are objects' schemas (the others stay as they are), and a
    oneOf beside `type: string` (which get_parser takes first) is not read.
    With `type_lists`, a type list it reaches is a choice of the bare types, every other
    keyword dropped (`[get_parser(JsonSchemaObject(type=t)) ...]`); with `whole_patterns`,
    a pattern matches the whole string (whole_pattern); with `ignored_refs`, a `$ref`
    beside a type, anyOf, allOf, const or oneOf is dropped (ref_ignored).

    >>> dispatch_reading({"oneOf": [{"type": "null"}, {"properties": {"a": {}}}], "required": ["a"]})
    {'anyOf': [{'type': 'null'}, {'type': 'object', 'required': ['a'], 'properties': {'a': {}}}]}
    >>> dispatch_reading({"allOf": [{"properties": {"a": {}}, "required": ["a"]}, {"type": "object", "properties": {}}]})
    {'type': 'object', 'properties': {'a': {}}, 'required': ['a']}
    >>> dispatch_reading({"oneOf": [{"type": "null"}]}, one_of_objects=True)
    {'anyOf': [{'type': 'object', 'required': []}]}
    >>> dispatch_reading({"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 4}]}, one_of_objects=True)
    {'type': 'string'}
    >>> dispatch_reading({"type": ["object", "null"], "properties": {"a": {}}}, type_lists=True)
    {'anyOf': [{'type': 'object'}, {'type': 'null'}]}
    """
    parts = node.get("allOf")
    if isinstance(parts, list) and parts and "anyOf" not in node and all(
            isinstance(o, dict) and (all_of_parts or object_schema(o)) for o in parts) and not any(
            o.get("properties") is None and any(p.get("properties") for p in parts[:i]) for i, o in enumerate(parts)):
        # each later part takes the earlier parts' properties it lacks and their required keys
        # (_merge_object_schemas); the last part, so merged, is the schema
        merged = dict(parts[-1])
        props = dict(parts[-1].get("properties") or {})
        required = list(parts[-1].get("required") or [])
        for part in reversed(parts[:-1]):
            props.update({k: v for k, v in (part.get("properties") or {}).items() if k not in props})
            required += [k for k in part.get("required") or [] if k not in required]
        if props:
            merged["properties"] = props
        if required:
            merged["required"] = required
        return merged
    earlier = any(k in node for k in ("anyOf", "allOf", "const"))
    if ignored_refs and ref_ignored(node):
        node = {k: v for k, v in node.items() if k != "$ref"}
    if whole_patterns and isinstance(node.get("pattern"), str):
        whole = whole_pattern(node["pattern"])
        if whole is not None:
            node = dict(node, pattern=whole)
    if one_of_objects and isinstance(node.get("oneOf"), list) and not earlier and node.get("type") == "string":
        # get_parser takes `type: string` before `oneOf`: the options are never read
        return {k: v for k, v in node.items() if k != "oneOf"}
    if isinstance(node.get("oneOf"), list) and not earlier and node.get("type") != "string":
        options = [_merged_option(node, o) if isinstance(o, dict) and (one_of_objects or object_schema(o)) else o
                   for o in node["oneOf"]]
        dropped = ("oneOf", "properties", "required", "additionalProperties") + (("type",) if one_of_objects else ())
        out = {k: v for k, v in node.items() if k not in dropped}
        out["anyOf"] = options
        return out
    if type_lists and isinstance(node.get("type"), list) and not earlier and "oneOf" not in node and "enum" not in node:
        return {"anyOf": [{"type": t} for t in node["type"]]}
    return node


#: a character no schema names: what an escape in a string is to raw_escapes, and a
#: backslash in a property name or string enum value to raw_string
RAW_BACKSLASH = "\ue000"


def raw_string(s: str) -> str:
    """A property name or string enum value as lm-format-enforcer walks it
    (StringParsingState's allowed_strings, character by character, unescaped): a `"` in
    it ends the string there, and a `\\` begins an escape, any escape (its parser for
    the escape is pushed, and takes `"/\\bfnrt` or `u` and four hex digits); the backslash
    is RAW_BACKSLASH, as raw_escapes writes every escape of the text.

    >>> raw_string('a"b') == "a", raw_string("x\\\\y") == "x" + RAW_BACKSLASH + "y"
    (True, True)
    """
    return s.split('"', 1)[0].replace("\\", RAW_BACKSLASH)


#: an escape lm-format-enforcer takes, or the start of one at the end of the text
_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|u[0-9a-fA-F]{0,3}$|["\\/bfnrt]|$)')


def raw_escapes(text: str) -> str:
    """The JSON text with every escape in a string (and an unfinished one at the end)
    written RAW_BACKSLASH: lm-format-enforcer's string parser takes the backslash alone
    into the string, its escape parser the rest (raw_string).

    >>> raw_escapes('{"a\\\\"": "\\\\u00e9\\\\n", "\\\\u0') == '{"a%s": "%s%s", "%s' % ((RAW_BACKSLASH,) * 4)
    True
    """
    out: List[str] = []
    i = 0
    for j, c, in_string, escaped in string_chars(text):
        m = _ESCAPE.match(text, j) if in_string and c == "\\" and not escaped and j >= i else None
        if m:  # (one it does not take stays, and is refused)
            out.append(text[i:j] + RAW_BACKSLASH)
            i = m.end()
    return "".join(out) + text[i:]


def _raw_strings(node: Dict[str, Any]) -> None:
    """The node's property names, required keys, string enum values and string const
    read as lm-format-enforcer walks them (raw_string), in place."""
    if isinstance(node.get("properties"), dict):
        node["properties"] = {raw_string(k): v for k, v in node["properties"].items()}
    for k in ("required", "enum"):
        if isinstance(node.get(k), list):
            node[k] = [raw_string(v) if isinstance(v, str) else v for v in node[k]]
    if isinstance(node.get("const"), str):
        node["const"] = raw_string(node["const"])


#: a property name no text writes: where lm-format-enforcer waits for a required key it
#: never offers (unlisted_required)
UNWRITABLE_KEY = "\ue001"


def unlisted_required(node: Dict[str, Any]) -> List[str]:
    """The required names of an object schema with properties that its properties do not
    name. lm-format-enforcer offers only the listed keys (ObjectParsingState's
    possible_keys) and lets the object end only once every required key is written
    (can_end): such an object never ends.

    >>> unlisted_required({"properties": {"a": {}}, "required": ["a", "b"]}), unlisted_required({"required": ["b"]})
    (['b'], [])
    """
    props, required = node.get("properties"), node.get("required")
    if not isinstance(props, dict) or not isinstance(required, list):
        return []
    return [k for k in required if isinstance(k, str) and k not in props]


def _unlisted_required(node: Dict[str, Any], how: str) -> None:
    """The node's unlisted required names (unlisted_required), in place: `dropped` from
    `required`; `unwritable`, dropped and replaced by UNWRITABLE_KEY, a required property
    put last; `listed`, each made a property (any value)."""
    unlisted = unlisted_required(node)
    if not unlisted or not how:
        return
    if how == "listed":
        node["properties"] = dict(node["properties"], **{k: {} for k in unlisted})
        return
    node["required"] = [k for k in node["required"] if k not in unlisted]
    if how == "unwritable":
        node["properties"] = dict(node["properties"], **{UNWRITABLE_KEY: {}})
        node["required"].append(UNWRITABLE_KEY)


def json_reading_schema(schema: Any, one_of_objects: bool = False, type_lists: bool = False,
                        whole_patterns: bool = False, ignored_refs: bool = False, all_of_parts: bool = False,
                        raw_strings: bool = False, unlisted_dropped: bool = False,
                        unlisted_unwritable: bool = False, unlisted_listed: bool = False) -> Any:
    """The schema as lm-format-enforcer enforces it, for refimpl: oneOf (and with
    `type_lists` type lists, with `whole_patterns` patterns, with `ignored_refs` $refs,
    with `all_of_parts` every allOf) as dispatch_reading gives them; the ignored keywords
    dropped; an object with `properties` closed (it offers no other key), one without
    open to any key (with `additionalProperties` as their schema when it is a schema,
    its `required` not read);
    arrays at most 20 items unless maxItems says otherwise or minItems is at least 20,
    prefixItems not read, nor `items: false` or `maxItems: 0`;
    with `raw_strings`, property names and string enum and const values as it walks them
    (raw_string: the text is then read with raw_escapes); with `unlisted_dropped`,
    `unlisted_unwritable` or `unlisted_listed`, a closed object's required names that its
    properties do not name (unlisted_required) dropped, replaced by one required key no
    text writes, or listed as properties (_unlisted_required).

    >>> json_reading_schema({"type": "array", "items": {"type": "integer", "minimum": 0}})
    {'type': 'array', 'items': {'type': 'integer'}, 'maxItems': 20}
    >>> json_reading_schema({"type": "array", "prefixItems": [{"type": "integer"}], "items": False})
    {'type': 'array', 'maxItems': 20}
    >>> json_reading_schema({"properties": {"format": {"format": "date"}}})
    {'properties': {'format': {}}, 'additionalProperties': False}
    """
    schema = rewrite_schemas(schema, lambda node: dispatch_reading(node, one_of_objects, type_lists, whole_patterns,
                                                                   ignored_refs, all_of_parts))
    out = json.loads(json.dumps(schema))
    todo = [out]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for k in IGNORED_KEYWORDS:
            node.pop(k, None)
        if raw_strings:
            _raw_strings(node)
        if "properties" in node:
            node["additionalProperties"] = False
            _unlisted_required(node, "dropped" if unlisted_dropped else "unwritable" if unlisted_unwritable
                               else "listed" if unlisted_listed else "")
        elif node.get("type") == "object":
            if not isinstance(node.get("additionalProperties"), dict):
                node.pop("additionalProperties", None)
            # its keys come in any order, the required ones checked at `}` (refimpl, as
            # llguidance, would want required keys without a schema first): not read
            node.pop("required", None)
        # tuples are not read: prefixItems dropped, `items: false` and `maxItems: 0` too (a
        # false value is read as no value)
        node.pop("prefixItems", None)
        if node.get("items") is False:
            node.pop("items")
        if node.get("maxItems") == 0:
            node.pop("maxItems")
        if node.get("type") == "array" and "maxItems" not in node and node.get("minItems", 0) < MAX_ARRAY:
            node["maxItems"] = MAX_ARRAY
        for k, v in node.items():
            if k in SUBSCHEMA_KEYWORDS.named and isinstance(v, dict):
                todo.extend(v.values())  # names are not keywords: a property may be called "format"
            elif k not in _VALUES:
                todo.append(v)
    return out


def reading_lark(schema: Any, general_escapes: bool = False, **flags: bool) -> str:
    """lm-format-enforcer's reading of a JSON schema as a Lark grammar for refimpl (with
    general `\\uXXXX` escapes in strings when asked; `flags` for json_reading_schema).
    A oneOf left (one get_parser never reaches) is an anyOf: it never checks that only
    one option matches."""
    schema = json_reading_schema(schema, **flags)
    if isinstance(schema, dict):
        options = schema.setdefault("x-guidance", {})
        options["coerce_one_of"] = True
        options["whitespace_pattern"] = "[ \\t\\n\\r]{0,%d}" % MAX_WHITESPACE
        if general_escapes:
            options["json_allow_general_unicode_escapes"] = True
    return "start: WS? %%json %s WS?\nWS: /[ \\t\\n\\r]{1,%d}/\n" % (json.dumps(schema), MAX_WHITESPACE)


def json_reading(d: Divergence, **flags: bool) -> Optional[Callable[[int], bool]]:
    """Which tokens lm-format-enforcer allows after the divergence's prefix, by refimpl
    on its reading of a JSON schema: the decoded text and the tokens' strings (as for
    regexes; with `raw_strings`, read by raw_escapes), the schema as json_reading_schema
    gives it (with `flags`), and whitespace as its JsonSchemaParser allows it: up to 12
    of space, tab, newline and carriage return in a row between tokens, before the value
    and after it. An object with required names that its properties do not name
    (unlisted_required) is read as it reads one: only the listed keys, and it never ends
    — a token is allowed where refimpl allows it both with those names dropped and with
    them replaced by a key no text writes (json_reading_schema's unlisted_dropped,
    unlisted_unwritable)."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return None
    read, schema = text_reader(flags.get("raw_strings", False)), d.grammar.schema
    if not any(unlisted_required(s) for s in schemas(json_reading_schema(schema, **flags))):
        return token_reading(d, GrammarSpec("lark", reading_lark(schema, **flags)), eos_when_dead=True, read=read)
    dropped, unwritable = (token_reading(d, GrammarSpec("lark", reading_lark(schema, **dict(flags, **{how: True}))),
                                         eos_when_dead=True, read=read)
                           for how in ("unlisted_dropped", "unlisted_unwritable"))
    return lambda t: dropped(t) and unwritable(t)


def text_reader(raw_strings: bool) -> Callable[[str], bytes]:
    """The bytes refimpl reads for lm-format-enforcer's decoded text: the text, with
    `raw_strings` its escapes as raw_escapes writes them."""
    if raw_strings:
        return lambda text: raw_escapes(text).encode("utf-8")
    return lambda text: text.encode("utf-8")


def explains(d: Divergence, allows: Optional[Callable[[int], bool]]) -> bool:
    """Does `allows` answer as the peer did for every differing token?"""
    if allows is None or d.error is not None or d.refused is not None or not d.differing() or d.after_eos:
        return False
    return all(allows(t) for t in d.only_engine) and not any(allows(t) for t in d.only_refimpl)


# ------------------------------------------------------------------------------------ JSON text


def string_so_far(text: str) -> Optional[str]:
    """The characters of the JSON string the text ends inside, or None."""
    data = text.encode("utf-8")
    start = open_string(data)
    return None if start is None else data[start:].decode("utf-8")


WHITESPACE = " \t\n\r"  # lmformatenforcer.consts.WHITESPACE_CHARACTERS


def drop_string_leads(text: str) -> str:
    """The text as lm-format-enforcer's strings hold it: the whitespace right after a
    string's opening quote is left out (StringParsingState.add_character returns itself
    for whitespace while its string is empty).

    >>> drop_string_leads('{"a": " \\t x", "b": "y z"} ')
    '{"a": "x", "b": "y z"} '
    """
    out: List[str] = []
    in_string = escaped = lead = False
    for c in text:
        if in_string:
            if lead and c in WHITESPACE:
                continue
            lead = False
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = lead = True
        out.append(c)
    return "".join(out)


def _raw_controls(text: str) -> str:
    """Raw control characters and DEL as é (which a string takes where they do): the
    readings of control-characters-in-strings and json-string-spelling, for predicates
    whose tokens hold them too."""
    return "".join("\u00e9" if c < " " or c == "\x7f" else c for c in text)


def string_reading(d: Divergence, schema: Any, leads: bool) -> Optional[Callable[[int], bool]]:
    """Which tokens lm-format-enforcer allows, by refimpl on json_reading of `schema`, the
    text and each token's string read together with raw control characters as é and, with
    `leads`, the whitespace that opens a string left out (drop_string_leads)."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return None
    def read(text: str) -> bytes:
        return _raw_controls(drop_string_leads(text) if leads else text).encode("utf-8")

    return token_reading(d, GrammarSpec("lark", reading_lark(schema)), eos_when_dead=False, read=read)


def open_objects(text: str, closed: bool = False) -> Dict[int, Tuple[List[str], Optional[str]]]:
    """The JSON objects the text opens (with `closed`, also those it closes), by the
    position of their `{`: the keys written in each so far (as spelled, escapes kept) and
    the key being written where the text ends inside one (its characters so far), else
    None. The innermost open object is the last.

    >>> open_objects('{"a": {"b": 1}, "c'), open_objects('{"a": {"b": 1}, "c', closed=True)
    ({0: (['a'], 'c')}, {0: (['a'], 'c'), 6: (['b'], None)})
    >>> open_objects('{"a": [{"x\\\\"y": 0, "')
    {0: (['a'], None), 7: (['x\\\\"y'], '')}
    """
    objects: Dict[int, Tuple[List[str], Optional[str]]] = {}
    stack: List[Tuple[int, bool]] = []  # (position of the opener, is an object)
    expecting_key: Dict[int, bool] = {}
    key_of: Optional[int] = None  # the object whose key the current string is
    chars: List[str] = []
    inside = False  # does the text so far end inside a string
    for i, c, in_string, escaped in string_chars(text):
        if in_string:
            if c == '"' and not escaped:
                inside = False
                if key_of is not None:
                    objects[key_of][0].append("".join(chars))
                    expecting_key[key_of] = False
            else:
                chars.append(c)
        elif c == '"':
            inside, chars = True, []
            key_of = stack[-1][0] if stack and stack[-1][1] and expecting_key[stack[-1][0]] else None
        elif c in "{[":
            stack.append((i, c == "{"))
            if c == "{":
                objects[i] = ([], None)
                expecting_key[i] = True
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == "," and stack and stack[-1][1]:
            expecting_key[stack[-1][0]] = True
    if inside and key_of is not None:
        objects[key_of] = (objects[key_of][0], "".join(chars))
    if closed:
        return objects
    return {at: objects[at] for at, is_object in stack if is_object}


def first_array_item(text: str) -> Optional[str]:
    """Where the innermost open container of the JSON text is an array still in its first
    item: the text of that item (after its `[`, whitespace left out), else None.

    >>> first_array_item('[1, ["a,b", 2'), first_array_item('[1, {"a": [tr'), first_array_item('[1, 2')
    (None, 'tr', None)
    """
    stack: List[Tuple[str, int]] = []  # (opener, where its first item begins, or -1 after a comma)
    for i, c, in_string, _ in string_chars(text):
        if in_string or c == '"':
            continue
        if c in "[{":
            stack.append((c, i + 1))
        elif c in "]}":
            if stack:
                stack.pop()
        elif c == "," and stack:
            stack[-1] = (stack[-1][0], -1)
    if not stack or stack[-1][0] != "[" or stack[-1][1] < 0:
        return None
    return text[stack[-1][1]:].lstrip(WHITESPACE)
