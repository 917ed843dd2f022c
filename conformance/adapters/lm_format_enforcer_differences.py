"""lm-format-enforcer's known differences from maskref (conformance/adapters/
lm_format_enforcer.py is the backend): how it reads token bytes (as decoded strings),
regexes (interegular) and JSON schemas, each a predicate that replays refimpl on that
reading and recognises exactly the documented difference (docs/findings.md, E1-E10)."""
from __future__ import annotations

import json
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from refimpl import Vocabulary
from refimpl.errors import GrammarError
from refimpl.recognition.recognizer import Recognizer

from ..differences import KnownDifference, all_differing
from ..divergence import Divergence, compiled, valid_utf8
from ..vectors import GrammarSpec, vocab_hash
from ..readings.regex_text import ASCII_CLASSES as _ASCII, write_out_classes
from ..readings.json_schemas import SUBSCHEMA_KEYWORDS, rewrite_schemas, schemas
from ..readings.json_text import open_string, respelling_explains, string_chars

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


# ----------------------------------------------------------------------------- lm-format-enforcer's reading, on refimpl



def ascii_classes(regex: str) -> Optional[str]:
    """The regex with interegular's ASCII meaning of \\d \\w \\s \\D \\W \\S written out
    (maskref's are Unicode); None where that cannot be written (\\D inside a class).

    >>> ascii_classes(r"\\d+[\\w.]\\S"), ascii_classes(r"\\\\d"), ascii_classes(r"[\\D]")
    ('[0-9]+[0-9A-Za-z_.][^\\\\t-\\\\r ]', '\\\\\\\\d', None)
    """
    return write_out_classes(regex, _ASCII)


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


def _alive(spec: GrammarSpec, data: bytes) -> Optional[Recognizer]:
    """refimpl's recognizer after `data`, or None where the grammar cannot go on."""
    g = compiled(spec)
    r = Recognizer(g.compiled, g.limits)
    return r if r.consume_bytes(data) else None


def regex_reading(d: Divergence, ascii: bool = True, alphabet: bool = True) -> Optional[Callable[[int], bool]]:
    """Which tokens lm-format-enforcer allows after the divergence's prefix, by refimpl
    on its reading: the parser has read the decoded text (`decoded_text`), a token is
    offered as its string (`token_string`, an empty one always allowed), with `ascii`
    interegular's ASCII classes, with `alphabet` no character after a token's first that
    is outside the tokenizer alphabet and not named by the regex; EOS where the regex
    accepts the text or is dead on it (RegexParser.can_end). None where the regex cannot
    be read so."""
    regex: Optional[str] = d.grammar.source
    if d.grammar.kind != "regex" or regex is None:
        return None
    if ascii:
        regex = ascii_classes(regex)
        if regex is None:
            return None
    spec = GrammarSpec("regex", regex)
    text = decoded_text(d.text()).encode("utf-8")
    state = _alive(spec, text)
    letters = tokenizer_alphabet(d.vocab)
    named = named_characters(d.grammar.source) if alphabet else frozenset()

    def allows(t: int) -> bool:
        if t in d.vocab.eos_token_ids:
            return state is None or state.is_accepting()
        s = token_string(d.vocab.tokens[t])
        if not s:
            return True
        if state is None or (alphabet and any(c not in letters and c not in named for c in s[1:])):
            return False
        return _alive(spec, text + s.encode("utf-8")) is not None

    return allows


#: keywords lm-format-enforcer's JsonSchemaParser does not enforce (get_parser never reads them)
IGNORED_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format",
                    "minProperties", "maxProperties", "uniqueItems", "not", "if", "then", "else",
                    "dependencies", "dependentRequired", "dependentSchemas", "propertyNames",
                    "patternProperties", "contains", "minContains", "maxContains")
#: whitespace lm-format-enforcer allows in a row (CharacterLevelParserConfig.max_consecutive_whitespaces)
MAX_WHITESPACE = 12
MAX_ARRAY = 20  # max_json_array_length: the arrays' maxItems unless the schema says otherwise
#: keywords whose value is data
_VALUES = ("enum", "const", "required", "default", "examples")


def _object_schema(node: Dict[str, Any]) -> bool:
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


def _ref_ignored(node: Dict[str, Any]) -> bool:
    """Does get_parser leave the schema's `$ref` unread (it follows one only where the
    schema has no type, and no anyOf, allOf, const or oneOf, which come first)?"""
    return "$ref" in node and any(k in node for k in ("type", "anyOf", "allOf", "const", "oneOf"))


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
    does, else only options that are objects' schemas (the others stay as they are).
    With `type_lists`, a type list it reaches is a choice of the bare types, every other
    keyword dropped (`[get_parser(JsonSchemaObject(type=t)) ...]`); with `whole_patterns`,
    a pattern matches the whole string (whole_pattern); with `ignored_refs`, a `$ref`
    beside a type, anyOf, allOf, const or oneOf is dropped (_ref_ignored).

    >>> dispatch_reading({"oneOf": [{"type": "null"}, {"properties": {"a": {}}}], "required": ["a"]})
    {'anyOf': [{'type': 'null'}, {'type': 'object', 'required': ['a'], 'properties': {'a': {}}}]}
    >>> dispatch_reading({"allOf": [{"properties": {"a": {}}, "required": ["a"]}, {"type": "object", "properties": {}}]})
    {'type': 'object', 'properties': {'a': {}}, 'required': ['a']}
    >>> dispatch_reading({"oneOf": [{"type": "null"}]}, one_of_objects=True)
    {'anyOf': [{'type': 'object', 'required': []}]}
    >>> dispatch_reading({"type": ["object", "null"], "properties": {"a": {}}}, type_lists=True)
    {'anyOf': [{'type': 'object'}, {'type': 'null'}]}
    """
    parts = node.get("allOf")
    if isinstance(parts, list) and parts and "anyOf" not in node and all(
            isinstance(o, dict) and (all_of_parts or _object_schema(o)) for o in parts) and not any(
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
    if ignored_refs and _ref_ignored(node):
        node = {k: v for k, v in node.items() if k != "$ref"}
    if whole_patterns and isinstance(node.get("pattern"), str):
        whole = whole_pattern(node["pattern"])
        if whole is not None:
            node = dict(node, pattern=whole)
    if isinstance(node.get("oneOf"), list) and not earlier and node.get("type") != "string":
        options = [_merged_option(node, o) if isinstance(o, dict) and (one_of_objects or _object_schema(o)) else o
                   for o in node["oneOf"]]
        dropped = ("oneOf", "properties", "required", "additionalProperties") + (("type",) if one_of_objects else ())
        out = {k: v for k, v in node.items() if k not in dropped}
        out["anyOf"] = options
        return out
    if type_lists and isinstance(node.get("type"), list) and not earlier and "oneOf" not in node and "enum" not in node:
        return {"anyOf": [{"type": t} for t in node["type"]]}
    return node


def json_reading_schema(schema: Any, one_of_objects: bool = False, type_lists: bool = False,
                        whole_patterns: bool = False, ignored_refs: bool = False, all_of_parts: bool = False) -> Any:
    """The schema as lm-format-enforcer enforces it, for refimpl: oneOf (and with
    `type_lists` type lists, with `whole_patterns` patterns, with `ignored_refs` $refs,
    with `all_of_parts` every allOf) as dispatch_reading gives them; the ignored keywords
    dropped; an object with `properties` closed (it offers no other key), one without
    open to any key (with `additionalProperties` as their schema when it is a schema,
    its `required` not read);
    arrays at most 20 items unless maxItems says otherwise or minItems is at least 20.

    >>> json_reading_schema({"type": "array", "items": {"type": "integer", "minimum": 0}})
    {'type': 'array', 'items': {'type': 'integer'}, 'maxItems': 20}
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
        if "properties" in node:
            node["additionalProperties"] = False
        elif node.get("type") == "object":
            if not isinstance(node.get("additionalProperties"), dict):
                node.pop("additionalProperties", None)
            # its keys come in any order, the required ones checked at `}` (refimpl, as
            # llguidance, would want required keys without a schema first): not read
            node.pop("required", None)
        if node.get("type") == "array" and "maxItems" not in node and node.get("minItems", 0) < MAX_ARRAY:
            node["maxItems"] = MAX_ARRAY
        for k, v in node.items():
            if k in SUBSCHEMA_KEYWORDS.named and isinstance(v, dict):
                todo.extend(v.values())  # names are not keywords: a property may be called "format"
            elif k not in _VALUES:
                todo.append(v)
    return out


def json_reading(d: Divergence, **flags: bool) -> Optional[Callable[[int], bool]]:
    """Which tokens lm-format-enforcer allows after the divergence's prefix, by refimpl
    on its reading of a JSON schema: the decoded text and the tokens' strings (as for
    regexes), the schema as json_reading_schema gives it (with `flags`), and whitespace
    as its JsonSchemaParser allows it: up to 12 of space, tab, newline and carriage
    return in a row between tokens, before the value and after it."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return None
    spec = GrammarSpec("lark", _reading_lark(d.grammar.schema, **flags))
    text = decoded_text(d.text()).encode("utf-8")
    state = _alive(spec, text)

    def allows(t: int) -> bool:
        if t in d.vocab.eos_token_ids:
            return state is None or state.is_accepting()
        s = token_string(d.vocab.tokens[t])
        if not s:
            return True
        return state is not None and _alive(spec, text + s.encode("utf-8")) is not None

    return allows


def _json_reading(d: Divergence) -> bool:
    return _explains(d, json_reading(d))


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


def _key_order_readings(d: Divergence, t: int, limit: int = 40) -> Optional[bool]:
    """Does refimpl on lm-format-enforcer's reading allow token t once the properties of
    the object the text ends inside are reordered: the keys written so far first, in
    their order, then the key the token writes (where it leaves the object open without
    beginning a key, as `",` does, any property not written), then the others? Every
    object schema holding those keys is tried, up to `limit` readings (None beyond)."""
    text = decoded_text(d.text())
    before = open_objects(text)
    if not before:
        return False
    at = list(before)[-1]
    written = before[at][0]
    after = open_objects(text + token_string(d.vocab.tokens[t]), closed=True)
    if at not in after:
        return False
    keys, partial = after[at]
    if len(keys) > len(written):
        key, whole = keys[len(written)], True
    elif partial is not None:
        key, whole = partial, False
    elif at in open_objects(text + token_string(d.vocab.tokens[t])):
        key, whole = "", False  # the object stays open (`,`, `",`, whitespace): any property not written may follow
    else:
        return False
    count = 0
    for index, node in enumerate(schemas(json_reading_schema(d.grammar.schema))):
        props = node.get("properties")
        if not isinstance(props, dict) or not set(written) <= set(props):
            continue
        for p in props:
            if p in written or (p != key if whole else not p.startswith(key)):
                continue
            count += 1
            if count > limit:
                return None
            variant = json_reading_schema(d.grammar.schema)
            target = list(schemas(variant))[index]
            order = written + [p] + [k for k in target["properties"] if k not in written and k != p]
            target["properties"] = {k: target["properties"][k] for k in order}
            reading = json_reading(Divergence(GrammarSpec("json_schema", schema=variant), d.vocab, d.prefix,
                                              d.step, [t], []))
            if reading is not None and reading(t):
                return True
    return False


def _any_key_order(d: Divergence) -> bool:
    """Only lm-format-enforcer allows the differing tokens, and refimpl on its reading
    (json_reading) allows each once the properties of the object the text ends inside
    come in another order (_key_order_readings): the keys written so far, then the one
    the token writes."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.grammar.options:
        return False
    if d.error is not None or d.refused is not None or d.after_eos:
        return False
    return all(_key_order_readings(d, t) for t in d.only_engine)


def _explains_some(d: Divergence, readings: List[Optional[Callable[[int], bool]]]) -> bool:
    return (d.error is None and d.refused is None and not d.after_eos
            and all(any(r is not None and r(t) for r in readings) for t in d.only_engine))


_NUMBER_CHARS = "-+.0123456789eE"
#: JSON numbers (RFC 8259), the integers among them, and lm-format-enforcer's numbers
#: (NumberParsingState.get_allowed_characters; checked against the enforcer character by
#: character, up to 7 characters of -0159.eE+): a fraction may be empty before an exponent
#: (0.e5, 1.e5), integers take exponents (0e1, 1e5), and -0, even as an integer, takes a
#: fraction (-0.5, -0.e5)
JSON_NUMBER = "-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"
JSON_INTEGER = "-?(0|[1-9][0-9]*)"
_EXP = "[eE][+-]?[0-9]+"
LMFE_NUMBER = "-?(0|[1-9][0-9]*)((\\.[0-9]*)?%s|\\.[0-9]+)?" % _EXP
LMFE_INTEGER = "(0|-?[1-9][0-9]*)(%s)?|-0((\\.[0-9]*)?%s|\\.[0-9]+)?" % (_EXP, _EXP)


def _number_prefix(regex: str, text: str) -> bool:
    return _alive(GrammarSpec("regex", regex), text.encode()) is not None


def _number_run(text: str) -> str:
    """The number the text ends inside: its longest suffix of number characters that
    begins with a digit or a minus sign (empty if none)."""
    i = len(text)
    while i > 0 and text[i - 1] in _NUMBER_CHARS:
        i -= 1
    run = text[i:]
    while run and run[0] not in "-0123456789":
        run = run[1:]
    return run


def _has_integers(schema: Any) -> bool:
    """Does some subschema have type integer?"""
    for node in schemas(schema):
        kind = node.get("type")
        if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
            return True
    return False


def _number_grammar(d: Divergence) -> bool:
    """Only lm-format-enforcer allows the differing tokens; the text ends inside a number,
    each token is all number characters, and the number it makes is a prefix of
    lm-format-enforcer's numbers but not of JSON's, or (where the schema has integers) of
    its integers but not of JSON's. (Every prefix of a JSON number is one of its numbers:
    there is no difference the other way.)"""
    if d.grammar.kind != "json_schema" or d.error is not None or d.refused is not None or d.after_eos:
        return False
    run = _number_run(decoded_text(d.text()))
    if not run or d.only_refimpl or not d.only_engine:
        return False
    integers = _has_integers(d.grammar.schema)
    for t in d.only_engine:
        s = token_string(d.vocab.tokens[t]) if t not in d.vocab.eos_token_ids else ""
        if not s or any(c not in _NUMBER_CHARS for c in s):
            return False
        number = run + s
        if not ((_number_prefix(LMFE_NUMBER, number) and not _number_prefix(JSON_NUMBER, number))
                or (integers and _number_prefix(LMFE_INTEGER, number) and not _number_prefix(JSON_INTEGER, number))):
            return False
    return True


def _reading_lark(schema: Any, general_escapes: bool = False, **flags: bool) -> str:
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


def _allowed_with(d: Divergence, find: Callable[[str], bool], replace: Callable[[str], str]) -> bool:
    """Only lm-format-enforcer allows the differing tokens; each one's string satisfies
    `find`, and refimpl on lm-format-enforcer's reading allows it rewritten by `replace`
    (what it holds replaced by é, which only a JSON string takes)."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.grammar.options:
        return False
    if d.error is not None or d.refused is not None or d.after_eos:
        return False
    text = decoded_text(d.text()).encode("utf-8")
    spec = GrammarSpec("lark", _reading_lark(d.grammar.schema))
    for t in d.only_engine:
        s = token_string(d.vocab.tokens[t])
        if not find(s) or _alive(spec, text + replace(s).encode("utf-8")) is None:
            return False
    return True


def _control_characters(d: Divergence) -> bool:
    """Tokens holding U+0000-U+001F, allowed by refimpl's reading with them as é."""
    return _allowed_with(d, lambda s: any(c < " " for c in s),
                         lambda s: "".join("\u00e9" if c < " " else c for c in s))


def _json_string_spelling(d: Divergence) -> bool:
    """Only lm-format-enforcer allows the differing tokens, and its reading with general
    `\\uXXXX` escapes allows each once raw DELs are `\\u007f` and `\\/` is `/`."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return False
    reading = compiled(GrammarSpec("lark", _reading_lark(d.grammar.schema, general_escapes=True)))
    return respelling_explains(d, reading, lambda text, data: (decoded_text(text) + token_string(data)).encode("utf-8"))


def _string_so_far(text: str) -> Optional[str]:
    """The characters of the JSON string the text ends inside, or None."""
    data = text.encode("utf-8")
    start = open_string(data)
    return None if start is None else data[start:].decode("utf-8")


def _pattern_alphabet(d: Divergence) -> bool:
    """In a schema with a string pattern, only refimpl allows the differing tokens, and each
    puts into a string a character outside lm-format-enforcer's default alphabet."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any("pattern" in s for s in schemas(d.grammar.schema)):
        return False
    from lmformatenforcer.consts import COMPLETE_ALPHABET

    text = decoded_text(d.text())
    for t in d.only_refimpl:
        string = _string_so_far(text + token_string(d.vocab.tokens[t]))
        if string is None or all(c in COMPLETE_ALPHABET for c in string):
            return False
    return True


def _min_length_alphabet(d: Divergence) -> bool:
    """In a schema with a minLength, outside strings, only refimpl allows the differing
    tokens, and each opens a string and puts into it, among its first minLength
    characters, a character outside lm-format-enforcer's default alphabet (its walk reads
    such a token character by character; once the string is open it uses its free-text
    token list, which is right)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    bounds = [s["minLength"] for s in schemas(d.grammar.schema) if isinstance(s.get("minLength"), int)]
    if not bounds or d.after_eos:
        return False
    from lmformatenforcer.consts import COMPLETE_ALPHABET

    text = decoded_text(d.text())
    if _string_so_far(text) is not None:
        return False  # inside a string lm-format-enforcer takes its free-text token list, which has them
    for t in d.only_refimpl:
        string = _string_so_far(text + token_string(d.vocab.tokens[t]))
        if string is None or all(c in COMPLETE_ALPHABET for c in string[:max(bounds)]):
            return False
    return True


def _non_string_const(d: Divergence) -> bool:
    """lm-format-enforcer's parser raised (the session's note) and it allows EOS only, on a
    schema with a `const` that is not a string."""
    if d.error or d.refused is not None or not d.note or not d.note.startswith("parser-error"):
        return False
    if not any("const" in s and not isinstance(s["const"], str) for s in schemas(d.grammar.schema)):
        return False
    return _peer_raised(d, "")


def _one_of_merge(d: Divergence) -> bool:
    """lm-format-enforcer's parser raised the TypeError of its _merge_object_schemas (the
    session's note) and allows EOS only, on a schema where an object with properties has
    a oneOf option without them (a `$ref`, say)."""
    if d.error or d.refused is not None or not d.note or not d.note.startswith("parser-error"):
        return False
    if "TypeError: argument of type 'NoneType' is not iterable" not in d.note:
        return False
    if not any(isinstance(s.get("properties"), dict) and s["properties"] and isinstance(s.get("oneOf"), list)
               and any(not isinstance(o, dict) or "properties" not in o for o in s["oneOf"])
               for s in schemas(d.grammar.schema)):
        return False
    return bool(d.only_refimpl) and all(t in d.vocab.eos_token_ids for t in d.only_engine)


def _trailing_comma(d: Divergence) -> bool:
    """The text ends (but for whitespace) in a comma outside strings, and every token only
    lm-format-enforcer allows closes the object or array there (none only refimpl allows)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    text = decoded_text(d.text())
    if not text.rstrip().endswith(",") or _string_so_far(text) is not None:
        return False
    return all(d.vocab.tokens[t].lstrip()[:1] in (b"}", b"]") for t in d.only_engine)


def _outside_alphabet(d: Divergence) -> bool:
    """The text ends inside a JSON string holding a character that begins no token, and
    lm-format-enforcer then allows only whitespace and EOS, refusing what refimpl allows."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or not d.only_refimpl:
        return False
    string = _string_so_far(decoded_text(d.text()))
    if string is None or all(c in tokenizer_alphabet(d.vocab) for c in string):
        return False
    return all(t in d.vocab.eos_token_ids or not d.vocab.tokens[t].strip() for t in d.only_engine)


def _quote_inside_token(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens; each has a quote after its first character
    and before its last, and refimpl's reading of lm-format-enforcer allows it: a token
    that ends a free string and goes on is never in lm-format-enforcer's free-text list
    (JsonFreetextTokenCache) and its walk explores only tokens that begin with the quote."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl:
        return False
    reading = json_reading(d)
    if reading is None or d.error is not None or d.refused is not None or d.after_eos:
        return False
    return all('"' in token_string(d.vocab.tokens[t])[1:-1] and reading(t) for t in d.only_refimpl)


def _escaped_length(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens, under a maxLength; each holds an escape
    (so it is longer as text than as the string's characters), and refimpl's reading of
    lm-format-enforcer allows it."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl:
        return False
    if '"maxLength"' not in d.grammar.source:
        return False
    reading = json_reading(d)
    if reading is None or d.error is not None or d.refused is not None or d.after_eos:
        return False
    return all("\\" in token_string(d.vocab.tokens[t]) and reading(t) for t in d.only_refimpl)


_WHITESPACE = " \t\n\r"  # lmformatenforcer.consts.WHITESPACE_CHARACTERS


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
            if lead and c in _WHITESPACE:
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
    spec = GrammarSpec("lark", _reading_lark(schema))
    before = decoded_text(d.text())

    def read(text: str) -> bytes:
        return _raw_controls(drop_string_leads(text) if leads else text).encode("utf-8")

    state = _alive(spec, read(before))

    def allows(t: int) -> bool:
        if t in d.vocab.eos_token_ids:
            return state is not None and state.is_accepting()
        s = token_string(d.vocab.tokens[t])
        return not s or (state is not None and _alive(spec, read(before + s)) is not None)

    return allows


def _leading_whitespace(d: Divergence) -> bool:
    """The text or a differing token puts whitespace right after a string's opening quote,
    and refimpl on lm-format-enforcer's reading explains the differing tokens only with
    that whitespace left out of the string."""
    if d.grammar.kind != "json_schema" or d.grammar.options:
        return False
    text = decoded_text(d.text())
    if not all(drop_string_leads(text + token_string(d.vocab.tokens[t])) != text + token_string(d.vocab.tokens[t])
               for t in d.differing()):
        return False
    return (_explains(d, string_reading(d, d.grammar.schema, leads=True))
            and not _explains(d, string_reading(d, d.grammar.schema, leads=False)))


def _without_max_length_zero(schema: Any) -> Any:
    out = json.loads(json.dumps(schema))
    for node in schemas(out):
        if node.get("maxLength") == 0:
            del node["maxLength"]
    return out


def _max_length_zero(d: Divergence) -> bool:
    """The schema has a maxLength of 0, and refimpl on lm-format-enforcer's reading
    explains the differing tokens only with it left out."""
    if d.grammar.kind != "json_schema" or not any(s.get("maxLength") == 0 for s in schemas(d.grammar.schema)):
        return False
    return (_explains(d, string_reading(d, _without_max_length_zero(d.grammar.schema), leads=True))
            and not _explains(d, string_reading(d, d.grammar.schema, leads=True)))


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
    return text[stack[-1][1]:].lstrip(_WHITESPACE)


def _array_options(schema: Any) -> List[Any]:
    """For each anyOf with two or more array options, the last one's items schema."""
    out = []
    for node in schemas(schema):
        options = node.get("anyOf")
        if isinstance(options, list):
            arrays = [o for o in options if isinstance(o, dict) and o.get("type") == "array"]
            if len(arrays) >= 2:
                out.append(arrays[-1].get("items", {}))
    return out


def _array_union(d: Divergence) -> bool:
    """The text ends inside an array's first item, the schema has an anyOf of two or more
    array schemas, and refimpl on that item, read as an item of the last of them,
    explains every differing token (none is EOS): lm-format-enforcer's array options push
    their item parsers onto one shared stack, the last option's on top, and that one takes
    the item's characters."""
    if d.grammar.kind != "json_schema" or d.grammar.options or d.error or d.refused is not None or d.after_eos:
        return False
    item = first_array_item(decoded_text(d.text()))
    if item is None or not d.differing() or any(t in d.vocab.eos_token_ids for t in d.differing()):
        return False
    for items in _array_options(d.grammar.schema):
        spec = GrammarSpec("lark", _reading_lark(items))
        if all((_alive(spec, (item + token_string(d.vocab.tokens[t])).encode("utf-8")) is not None)
               == (t in d.only_engine) for t in d.differing()):
            return True
    return False


def _string_alphabet(d: Divergence) -> bool:
    """Only refimpl allows the differing tokens; each puts into a JSON string, after its
    first character, a character that begins no token, and refimpl's reading of
    lm-format-enforcer allows it (lm-format-enforcer's walk offers a string only the
    characters of its tokenizer alphabet; its free-text token list, used for a lone
    string without enum or pattern, has them)."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl or d.after_eos:
        return False
    reading = json_reading(d)
    if reading is None or d.error is not None or d.refused is not None:
        return False
    text, letters = decoded_text(d.text()), tokenizer_alphabet(d.vocab)
    for t in d.only_refimpl:
        if t in d.vocab.eos_token_ids or not reading(t):
            return False
        s = token_string(d.vocab.tokens[t])
        if not any(c not in letters and _string_so_far(text + s[:i]) is not None for i, c in enumerate(s) if i):
            return False
    return True


def _enum_words(schema: Any) -> Tuple[List[str], List[str]]:
    """The values of the enums lm-format-enforcer writes with Python's str() (all of them
    int, float or bool, which Python counts as int) where that differs from JSON: as it
    writes them (True) and as JSON does (true)."""
    lmfe: List[str] = []
    spelled: List[str] = []
    for node in schemas(schema):
        values = node.get("enum")
        if isinstance(values, list) and values and all(isinstance(v, (int, float)) for v in values):
            if any(str(v) != json.dumps(v) for v in values):
                lmfe += [str(v) for v in values]
                spelled += [json.dumps(v) for v in values]
    return lmfe, spelled


_WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-"


def _enum_python(d: Divergence) -> bool:
    """The schema has an enum of numbers and booleans, and each differing token continues
    the word the text ends in (letters, digits, . + -) with word characters (after
    whitespace, where the text ends in no word): into a
    prefix of a value as Python spells it (True) but not as JSON does, where only
    lm-format-enforcer allows it, and the other way round where only refimpl does."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.after_eos:
        return False
    lmfe, spelled = _enum_words(d.grammar.schema)
    if not lmfe or not d.differing():
        return False
    text = decoded_text(d.text())
    i = len(text)
    while i > 0 and text[i - 1] in _WORD:
        i -= 1
    for t in d.differing():
        s = token_string(d.vocab.tokens[t]) if t not in d.vocab.eos_token_ids else ""
        if i == len(text):
            s = s.lstrip(_WHITESPACE)  # a token that begins the value may begin with whitespace
        if not s or any(c not in _WORD for c in s):
            return False
        word = text[i:] + s
        python = any(w.startswith(word) for w in lmfe)
        json_ = any(w.startswith(word) for w in spelled)
        if python == json_ or python != (t in d.only_engine):
            return False
    return True


def _peer_raised(d: Divergence, message: str) -> bool:
    """lm-format-enforcer's parser raised `message` (the session's note), and it allows
    EOS only where refimpl does not allow it."""
    if d.error or d.refused is not None or not d.note or not d.note.startswith("parser-error"):
        return False
    return message in d.note and bool(d.only_engine) and all(t in d.vocab.eos_token_ids for t in d.only_engine)


def _mixed_enum(d: Divergence) -> bool:
    """It raised "Unsupported enum type" on a schema with an enum neither all strings nor
    all numbers (booleans count as numbers)."""
    if not any(isinstance(s.get("enum"), list) and not all(isinstance(v, str) for v in s["enum"])
               and not all(isinstance(v, (int, float)) for v in s["enum"]) for s in schemas(d.grammar.schema)):
        return False
    return _peer_raised(d, "(Exception: Unsupported enum type ")


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


def _untyped(d: Divergence) -> bool:
    """It raised "Unsupported type None" on a schema with a subschema it cannot dispatch
    (untyped_subschemas)."""
    return bool(untyped_subschemas(d.grammar.schema)) and _peer_raised(d, "(Exception: Unsupported type None)")


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


def _pattern_syntax(d: Divergence) -> bool:
    """It raised an exception that interegular raises on one of the schema's patterns
    (unreadable_patterns)."""
    return any(_peer_raised(d, "(%s: " % name) for name in set(unreadable_patterns(d.grammar.schema)))


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


def _unresolved_ref(d: Divergence) -> bool:
    """It raised the KeyError of an unresolved reference's last segment."""
    return any(_peer_raised(d, "(KeyError: %r)" % name) for name in set(unresolved_refs(d.grammar.schema)))


def _tuple_items(d: Divergence) -> bool:
    """It raised its schema model's AttributeError on an `items` that is a list (a
    definition it reads only when a `$ref` reaches it)."""
    return (any(isinstance(node.get("items"), list) for node in schemas(d.grammar.schema))
            and _peer_raised(d, "(AttributeError: 'list' object has no attribute 'get')"))


def _pattern_with_length(d: Divergence) -> bool:
    """Its mask raised (the divergence's error) its LMFormatEnforcerException "both a
    pattern and a min/max length", which the enforcer lets through, on a schema with a
    string that has both."""
    if not any(node.get("type") == "string" and isinstance(node.get("pattern"), str)
               and ("minLength" in node or "maxLength" in node) for node in schemas(d.grammar.schema)):
        return False
    return d.error is not None and (
        "LMFormatEnforcerException: String schema contains both a pattern and a min/max length" in d.error)


def _dispatch_explains(d: Divergence, flag: str, keyword: Callable[[Dict[str, Any]], bool]) -> bool:
    """Some subschema has the keyword, and refimpl on lm-format-enforcer's reading explains
    the differing tokens with json_reading_schema's `flag` set, not without (the other
    flags set where they come before it: type_lists, one_of_objects), or cannot compile
    the reading without it."""
    if d.grammar.kind != "json_schema" or not any(keyword(s) for s in schemas(d.grammar.schema)):
        return False
    others = {"type_lists": True} if flag == "one_of_objects" else {}
    if not _explains(d, json_reading(d, **dict(others, **{flag: True}))):
        return False
    try:
        return not _explains(d, json_reading(d, **others))
    except GrammarError:  # refimpl cannot compile the reading without the flag: it explains nothing
        return True


def _whole_patterns(d: Divergence) -> bool:
    """A pattern, and the reading explains the differing tokens only with patterns matching
    the whole string (whole_pattern)."""
    return _dispatch_explains(d, "whole_patterns", lambda s: isinstance(s.get("pattern"), str))


def _ignored_refs(d: Divergence) -> bool:
    """A `$ref` get_parser does not follow, and the reading explains the differing tokens
    only without it (_ref_ignored)."""
    return _dispatch_explains(d, "ignored_refs", _ref_ignored)


def _all_of_parts(d: Divergence) -> bool:
    """An allOf with a part that is no object's schema, and the reading explains the
    differing tokens only with that part reduced to its properties and required keys."""
    return _dispatch_explains(d, "all_of_parts", lambda s: isinstance(s.get("allOf"), list) and any(
        isinstance(o, dict) and not _object_schema(o) for o in s["allOf"]))


def _one_of_objects(d: Divergence) -> bool:
    """A oneOf with an option that is no object's schema, and the reading explains the
    differing tokens only with every option an object (dispatch_reading)."""
    return _dispatch_explains(d, "one_of_objects", lambda s: isinstance(s.get("oneOf"), list) and any(
        isinstance(o, dict) and not _object_schema(o) for o in s["oneOf"]))


def _type_list(d: Divergence) -> bool:
    """A type list, and the reading explains the differing tokens only with type lists as
    bare types (dispatch_reading)."""
    return _dispatch_explains(d, "type_lists", lambda s: isinstance(s.get("type"), list))


def _explains(d: Divergence, allows: Optional[Callable[[int], bool]]) -> bool:
    """Does `allows` answer as the peer did for every differing token?"""
    if allows is None or d.error is not None or d.refused is not None or not d.differing() or d.after_eos:
        return False
    return all(allows(t) for t in d.only_engine) and not any(allows(t) for t in d.only_refimpl)


def _not_whole_utf8(d: Divergence) -> bool:
    return not valid_utf8(d.text()) or any(not valid_utf8(d.vocab.tokens[t]) for t in d.differing())


def _regex_decoded(d: Divergence) -> bool:
    """The text or a differing token is not whole UTF-8, and lm-format-enforcer's reading
    (regex_reading) explains every differing token."""
    return d.grammar.kind == "regex" and _not_whole_utf8(d) and _explains(d, regex_reading(d))


def _regex_ascii(d: Divergence) -> bool:
    """All UTF-8; the reading explains the differing tokens only with ASCII classes."""
    return (d.grammar.kind == "regex" and not _not_whole_utf8(d) and _explains(d, regex_reading(d))
            and not _explains(d, regex_reading(d, ascii=False)))


def _regex_alphabet(d: Divergence) -> bool:
    """All UTF-8; the reading explains the differing tokens only with the tokenizer
    alphabet."""
    return (d.grammar.kind == "regex" and not _not_whole_utf8(d) and _explains(d, regex_reading(d))
            and not _explains(d, regex_reading(d, alphabet=False)))


# ----------------------------------------------------------------------------- known differences


EMPTY_TOKEN = KnownDifference(
    "empty-token", "semantic",
    "lm-format-enforcer allows a token that decodes to the empty string in every state (it sits at "
    "the root of its prefix tree); maskref never allows empty tokens (docs/semantics.md)",
    lambda d: all_differing(d, lambda data: data == b""),
)
DECODED_STRINGS = KnownDifference(
    "decoded-strings", "semantic",
    "lm-format-enforcer matches decoded text, not bytes: a token that is not whole UTF-8 is offered "
    "to its parser as U+FFFD (and the bytes of a character split over tokens reach it only once "
    "complete), so such tokens are allowed where the grammar allows U+FFFD there and refused where "
    "maskref lets them start or finish a character; the differing tokens are exactly those refimpl "
    "answers differently on that reading",
    _regex_decoded,
)
ASCII_CLASSES = KnownDifference(
    "ascii-classes", "semantic",
    "lm-format-enforcer's regexes are interegular's: \\d, \\w and \\s are ASCII (maskref's, Rust "
    "regex's, are Unicode)",
    _regex_ascii,
)
JSON_READING = KnownDifference(
    "json-reading", "semantic",
    "lm-format-enforcer's JSON: up to 12 whitespace characters in a row between tokens and also "
    "before and after the value; minimum, maximum, exclusiveMinimum/Maximum, multipleOf, format, "
    "min/maxProperties and uniqueItems not enforced; objects with properties closed, objects without "
    "open whatever additionalProperties says; arrays of at most 20 items unless the schema bounds "
    "them; the differing tokens are exactly those refimpl answers differently on that reading "
    "(json_reading)",
    _json_reading,
)
ANY_KEY_ORDER = KnownDifference(
    "any-key-order", "semantic",
    "lm-format-enforcer lets an object's properties come in any order; maskref (as llguidance) "
    "in the schema's order",
    _any_key_order,
)
NUMBER_GRAMMAR = KnownDifference(
    "number-grammar", "peer-bug",
    "lm-format-enforcer's numbers are not JSON's: a fraction may be empty before an exponent (0.e5, "
    "1.e5), and integers take exponents (0e1, 1e5) and, after -0, a fraction (-0.5)",
    _number_grammar,
)
CONTROL_CHARACTERS = KnownDifference(
    "control-characters-in-strings", "peer-bug",
    "lm-format-enforcer allows raw control characters U+0000-U+001F inside JSON strings (JSON "
    "requires them escaped)",
    _control_characters,
)
JSON_STRING_SPELLING = KnownDifference(
    "json-string-spelling", "semantic",
    "lm-format-enforcer's JSON strings allow a raw U+007F, the escape \\/ and every \\uXXXX, as "
    "JSON does; maskref (as llguidance) wants DEL escaped, and its default escapes leave out \\/ "
    "and \\u except for control characters and DEL",
    _json_string_spelling,
)
PATTERN_ALPHABET = KnownDifference(
    "pattern-alphabet", "peer-bug",
    "lm-format-enforcer builds a string pattern's RegexParser with its default alphabet (printable "
    "ASCII without | ~ \\) before the enforcer sets the tokenizer's: `[^a-c]+` never produces `|`, "
    "`~`, a backslash or any non-ASCII character",
    _pattern_alphabet,
)
MIN_LENGTH_ALPHABET = KnownDifference(
    "min-length-alphabet", "peer-bug",
    "in a token that opens a JSON string under a minLength, lm-format-enforcer takes, until that length, "
    "only its default alphabet (printable ASCII without | ~ \\): JsonSchemaParser keeps `alphabet_without_quotes` "
    "from the config it was built with, before the enforcer sets the tokenizer's, so `\"—` is "
    "refused as the start of {\"type\": \"string\", \"minLength\": 1}",
    _min_length_alphabet,
)
NON_STRING_CONST = KnownDifference(
    "non-string-const", "peer-bug",
    "lm-format-enforcer cannot write a `const` that is not a string ({\"const\": 0}): its string "
    "parser is given the value, raises, and the enforcer allows only EOS",
    _non_string_const, ends_path=True,
)
ONE_OF_MERGE = KnownDifference(
    "one-of-merge", "peer-bug",
    "lm-format-enforcer cannot write an object schema with properties and a oneOf whose options "
    "have none (`{\"properties\": {...}, \"oneOf\": [{\"$ref\": ...}]}`): _merge_object_schemas "
    "raises TypeError on the option's missing properties, and the enforcer allows only EOS",
    _one_of_merge, ends_path=True,
)
TRAILING_COMMA = KnownDifference(
    "trailing-comma", "peer-bug",
    "lm-format-enforcer lets an object close right after a comma ({\"age\": 42,}) when its "
    "remaining properties are optional: invalid JSON",
    _trailing_comma, ends_path=True,
)
OUTSIDE_ALPHABET = KnownDifference(
    "character-outside-alphabet", "peer-bug",
    "a character that begins no token (é split over two tokens of a byte vocabulary), once in a "
    "JSON string, ends lm-format-enforcer's JSON: no parser on its stack accepts it, and only "
    "whitespace and EOS are allowed after it",
    _outside_alphabet, ends_path=True,
)
QUOTE_INSIDE_TOKEN = KnownDifference(
    "quote-inside-token", "peer-bug",
    "lm-format-enforcer never allows a token that closes a free-text JSON string and goes on (`.\",` "
    "after `{\"name\": \"`): its free-text token list leaves out tokens with a quote before their "
    "end, and its walk explores only tokens that begin with the quote",
    _quote_inside_token,
)
ESCAPED_LENGTH = KnownDifference(
    "escaped-length", "peer-bug",
    "lm-format-enforcer counts a string's maxLength in characters of its escaped text (`\\\\` is "
    "two), JSON Schema in characters of the string: a token with escapes is refused where the "
    "string would still fit",
    _escaped_length,
)
TOKENIZER_ALPHABET = KnownDifference(
    "tokenizer-alphabet", "semantic",
    "lm-format-enforcer's `.` and negated classes produce only characters of its alphabet, the "
    "characters that begin some token: a token holding, after its first character, a character "
    "that begins no token and that the regex does not name is refused",
    _regex_alphabet,
)

LEADING_WHITESPACE = KnownDifference(
    "string-leading-whitespace", "peer-bug",
    "lm-format-enforcer leaves the whitespace that follows a string's opening quote out of the string: "
    "it is not counted against minLength/maxLength nor read by the pattern (`\" ` is still empty: "
    "{\"type\": \"string\", \"maxLength\": 1} then allows a second character and refuses the closing quote, "
    "`^[^a-c]+$` refuses it)",
    _leading_whitespace,
)
MAX_LENGTH_ZERO = KnownDifference(
    "max-length-zero", "peer-bug",
    "lm-format-enforcer's free-text shortcut reads a string's maxLength 0 as no bound "
    "(JsonSchemaParser.shortcut_key: `max_length or sys.maxsize`): {\"type\": \"string\", \"maxLength\": 0} "
    "takes any string",
    _max_length_zero,
)
ARRAY_UNION = KnownDifference(
    "array-union", "peer-bug",
    "in an anyOf of two or more array schemas, each option's list parser pushes its item parser onto "
    "the one shared stack at `[` (ListParsingState.add_character, `context.active_parser`): the "
    "last option's item parser is on top and takes the first item, so `[]` of "
    "{\"anyOf\": [{\"type\": \"array\", \"maxItems\": 0}, {\"type\": \"array\", \"minItems\": 1}]} and a "
    "first item the earlier options' items take but the last's do not are refused",
    _array_union,
)
STRING_ALPHABET = KnownDifference(
    "string-alphabet", "semantic",
    "where lm-format-enforcer walks a JSON string character by character (a string under anyOf, with an "
    "enum or a pattern, a token that opens it), it offers only its alphabet, the characters that begin "
    "some token: a token holding, after its first character, a character that begins no token is refused "
    "(`\" 裏` of GPT-2 under {\"anyOf\": [{\"type\": \"string\"}, ...]})",
    _string_alphabet,
)
ENUM_PYTHON = KnownDifference(
    "enum-python-spelling", "peer-bug",
    "lm-format-enforcer writes an enum whose values are all numbers or booleans as Python's str() of "
    "each (`isinstance(True, int)`): {\"enum\": [true]} is written `True`, never `true`",
    _enum_python,
)
MIXED_ENUM = KnownDifference(
    "mixed-enum", "peer-bug",
    "lm-format-enforcer cannot write an enum whose values are neither all strings nor all numbers "
    "({\"enum\": [\"red\", 7]}, or with null): get_parser raises \"Unsupported enum type\" and the "
    "enforcer allows only EOS",
    _mixed_enum, ends_path=True,
)

UNTYPED_SUBSCHEMA = KnownDifference(
    "untyped-subschema", "peer-bug",
    "lm-format-enforcer cannot write a subschema without type, anyOf, allOf, oneOf, const, $ref or enum "
    "(`{\"properties\": {...}}`, `{\"pattern\": ...}`, `{}` as a property's schema), which JSON Schema reads as "
    "any value under its keywords: get_parser raises \"Unsupported type None\" when it reaches one and the "
    "enforcer allows only EOS (at the root the adapter reports the schema unsupported)",
    _untyped, ends_path=True,
)
ONE_OF_OBJECTS = KnownDifference(
    "one-of-objects", "peer-bug",
    "lm-format-enforcer reads every oneOf option as an object's schema (get_parser merges each into the "
    "parent's object): {\"oneOf\": [{\"type\": \"null\"}, {\"type\": \"string\"}]} takes any object and "
    "neither null nor a string; a `$ref` option is any object",
    _one_of_objects,
)
PATTERN_SYNTAX = KnownDifference(
    "pattern-syntax", "peer-bug",
    "lm-format-enforcer cannot write a string whose `pattern` interegular cannot parse (ECMA-262's named "
    "groups `(?<major>0|[1-9]\\d*)`, `\\p{L}`): RegexParser raises (InvalidSyntax, Unsupported) when the "
    "string's parser is made, and the enforcer allows only EOS",
    _pattern_syntax, ends_path=True,
)
UNRESOLVED_REF = KnownDifference(
    "ref-by-last-segment", "peer-bug",
    "lm-format-enforcer resolves a `$ref` by its last segment in the root's definitions (or $defs): "
    "`{\"$ref\": \"#\"}` (the root, a recursive schema) raises KeyError '#' when it is reached, and the "
    "enforcer allows only EOS",
    _unresolved_ref, ends_path=True,
)
TUPLE_ITEMS = KnownDifference(
    "tuple-items", "peer-bug",
    "lm-format-enforcer cannot read an `items` that is a list of schemas (draft 4's tuples) in a definition "
    "it reaches through a `$ref`: its schema model's validator raises AttributeError ('list' object has no "
    "attribute 'get') and the enforcer allows only EOS (at the root the schema is unsupported)",
    _tuple_items, ends_path=True,
)
PATTERN_WITH_LENGTH = KnownDifference(
    "pattern-with-length", "peer-bug",
    "lm-format-enforcer cannot write a string with both a `pattern` and a minLength or maxLength: "
    "StringParsingState raises \"String schema contains both a pattern and a min/max length, which is not "
    "currently supported\" when the string's parser is made, and get_allowed_tokens raises it (the output "
    "cannot go on)",
    _pattern_with_length, ends_path=True,
)
WHOLE_STRING_PATTERN = KnownDifference(
    "whole-string-pattern", "peer-bug",
    "lm-format-enforcer matches a string's `pattern` against the whole string (StringParsingState cuts one "
    "`^` and one `$` off, RegexParser matches to the end); JSON Schema's patterns are unanchored searches: "
    "`^https?://` allows any text after `https://`, lm-format-enforcer only the closing quote",
    _whole_patterns,
)
IGNORED_REF = KnownDifference(
    "ref-beside-keywords", "peer-bug",
    "lm-format-enforcer follows a `$ref` only in a schema without type, anyOf, allOf, const and oneOf "
    "(get_parser tries those first): {\"type\": \"object\", \"$ref\": \"#/definitions/c\", \"properties\": "
    "{\"p\": ...}} is read as its own properties alone, the definition's keys refused",
    _ignored_refs,
)
ALL_OF_PARTS = KnownDifference(
    "all-of-last-part", "peer-bug",
    "lm-format-enforcer reads an allOf as its last part given the other parts' properties and required keys "
    "(_merge_object_schemas): every other keyword of the other parts is dropped, a `$ref` part's definition "
    "too ({\"allOf\": [{\"$ref\": \"#/definitions/base\"}, {\"type\": \"object\", \"properties\": ...}]} "
    "is the second part alone)",
    _all_of_parts,
)
TYPE_LIST = KnownDifference(
    "type-list", "peer-bug",
    "lm-format-enforcer reads a schema whose type is a list as a choice of the bare types, dropping its other "
    "keywords: {\"type\": [\"object\", \"null\"], \"properties\": ..., \"required\": [\"a\"]} takes any "
    "object, `{}` too",
    _type_list,
)


KNOWN_DIFFERENCES = (EMPTY_TOKEN, DECODED_STRINGS, ASCII_CLASSES, TOKENIZER_ALPHABET, JSON_READING, ONE_OF_OBJECTS,
                     TYPE_LIST, WHOLE_STRING_PATTERN, IGNORED_REF, ALL_OF_PARTS, ANY_KEY_ORDER,
                     NUMBER_GRAMMAR, CONTROL_CHARACTERS, JSON_STRING_SPELLING, QUOTE_INSIDE_TOKEN, ESCAPED_LENGTH,
                     PATTERN_ALPHABET, MIN_LENGTH_ALPHABET, NON_STRING_CONST, ONE_OF_MERGE, OUTSIDE_ALPHABET,
                     TRAILING_COMMA, LEADING_WHITESPACE, MAX_LENGTH_ZERO, ARRAY_UNION, STRING_ALPHABET, ENUM_PYTHON,
                     MIXED_ENUM, UNTYPED_SUBSCHEMA, PATTERN_SYNTAX, UNRESOLVED_REF, TUPLE_ITEMS,
                     PATTERN_WITH_LENGTH)
