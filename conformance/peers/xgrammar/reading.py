"""xgrammar's reading of refimpl's grammar kinds: its input for a grammar spec (a regex
through compile_regex, a JSON schema through compile_json_schema with `json_options`, its
EBNF and GBNF through compile_grammar), and, for the predicates of its known differences,
refimpl's grammars for the way it reads them — a regex in its own dialect (through
maskref's reader of its `Regex` macro), a character grammar's rules, and a JSON schema as
its converter reads it (`schema_reading`, one reading per difference, READINGS).
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from refimpl import Grammar, MaskrefError, Matcher
from refimpl.frontends.ebnf.ast import Literal, Node, Ref
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.masks.mask import Mask

from ...divergence import Divergence, compiled
from ...readings.grammar_shapes import productive_rules, rewrite
from ...readings.json_schemas import rewrite_schemas
from ...readings.json_text import respelled
from ...readings.regex_text import ASCII_CLASSES, write_out_classes
from ...vectors import GrammarSpec, NotSupported, vocab_hash
from .regex_fsm import optional_groups


def json_options(options: Dict[str, Any]) -> Dict[str, Any]:
    """xgrammar's compile_json_schema arguments for maskref's JSON options (llguidance's
    x-guidance): the separators, and whether whitespace is flexible. strict_mode is off
    everywhere: JSON Schema allows properties and items a schema does not name."""
    options = dict(options)
    flexible = options.pop("whitespace_flexible", True)
    separators = (options.pop("item_separator", ","), options.pop("key_separator", ":"))
    if options:
        raise NotSupported("xgrammar has no JSON options %s" % sorted(options))
    return {"any_whitespace": bool(flexible), "separators": separators}


# ----------------------------------------------------------------------------- regexes and character grammars


def as_macro(pattern: str) -> Optional[str]:
    """The pattern rewritten for xgrammar's `Regex` macro, which maskref reads exactly
    (refimpl/frontends/ebnf/xgrammar_regex.py), so that it means what `compile_regex` makes
    of it (cpp/regex_converter.cc): the two readers differ in `\\s`, which compile_regex
    extends with U+00A0, and in a `]` outside a class, which compile_regex reads as itself
    (its `Convert`: "Non-special characters are matched literally"; xgrammar 0.2.9) and
    the macro refuses ("Unmatched ']'"). None where `\\S` sits inside a class (no
    rewriting without a class difference).

    >>> print(as_macro("[[:alpha:]]+"))
    [\\[:alpha:]\\]+
    """
    return write_out_classes(pattern, {"s": "\\t-\\r \\u00a0"}, flat=True)


def xgrammar_regex(pattern: str) -> Optional[Grammar]:
    """refimpl's grammar for a regex as xgrammar's compile_regex reads it, or None."""
    macro = as_macro(pattern)
    if macro is None:
        return None
    literal = macro.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    try:
        return compiled(GrammarSpec("ebnf", 'root ::= Regex("%s")' % literal, options={"dialect": "xgrammar"}))
    except Exception:  # noqa: BLE001 - not a regex xgrammar's macro reads
        return None


def character_grammar_rules(spec: GrammarSpec) -> Dict[str, Node]:
    """The rules of a GBNF vector or an xgrammar-dialect EBNF vector, as maskref reads them."""
    if spec.kind == "gbnf":
        from refimpl.frontends.ebnf.gbnf import read_rules as gbnf_rules

        return gbnf_rules(spec.source)
    from refimpl.frontends.ebnf.xgrammar import read_rules

    return read_rules(spec.source, spec.options.get("root") or "root")


def without_unproductive_rules(spec: GrammarSpec) -> Optional[Grammar]:
    """refimpl's grammar for the vector with every reference to a rule that derives no
    string (`r2 ::= r2`) read as ε, as xgrammar reads it; None if there is none."""
    rules = character_grammar_rules(spec)
    dead = set(rules) - productive_rules(rules)
    if not dead:
        return None
    rewrite(rules, spec.source or "", lambda n, _: Literal(-1, "") if isinstance(n, Ref) and n.name in dead else None)
    root = spec.options.get("root") or "root"
    return Grammar(compile_rules(rules, root, spec.source or ""), spec.kind, spec.source)


# ----------------------------------------------------------------------------- JSON schemas

#: the keywords xgrammar's SchemaParser::Parse (cpp/json_schema_converter.cc) tries in this
#: order: the first one present decides the schema, the keywords beside it are not read
_FIRST = ("$ref", "const", "enum", "anyOf", "oneOf", "allOf")
#: keywords no reading drops: annotations, and the definitions references point into
_KEPT = frozenset(("$schema", "$id", "id", "$anchor", "$comment", "title", "description", "default", "examples",
                   "deprecated", "readOnly", "writeOnly", "definitions", "$defs"))
_OBJECT_KEYWORDS = ("properties", "additionalProperties", "unevaluatedProperties")
_ARRAY_KEYWORDS = ("items", "prefixItems", "unevaluatedItems")
#: keywords xgrammar does not read: it warns of the first six (SchemaParser::Parse's
#: WarnUnsupportedKeywords) and silently ignores draft 4's `dependencies`, and, without strict
#: mode, `contains`, `minContains` and `maxContains`
_UNREAD = ("not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies", "contains",
           "minContains", "maxContains")
#: the readings: each a difference of xgrammar's schema parser from JSON Schema
(REF_SIBLINGS, UNTYPED, PATTERN_CLASSES, PATTERN_DOT, ONE_KEYWORD, ALL_OF_ANY, ONE_OF_ANY, UNTYPED_ANY, FORMATS,
 PATTERN_KEYS, WHOLE_PATTERN, OPTIONAL_GROUPS, UNREAD, REQUIRED, NAMED_FIRST, STRING_ONE, NON_POINTER_REF,
 UNEVALUATED_FALSE, PATTERN_ADDITIONAL, ESCAPED_NAMES) = (
    "ref-siblings", "untyped", "pattern-classes", "pattern-dot", "one-keyword", "allof-any", "oneof-anyof",
    "untyped-any", "formats", "pattern-keys", "whole-pattern", "optional-groups", "unread", "required-outside",
    "named-first", "one-string-keyword", "non-pointer-ref", "unevaluated-false", "pattern-additional",
    "escaped-names")
#: in the order the predicates add them up (semantic readings first; those first met on
#: MaskBench, then on the JSON-Schema-Test-Suite, last, as their differences are declared last)
READINGS = (REF_SIBLINGS, UNTYPED, PATTERN_CLASSES, PATTERN_DOT, ONE_KEYWORD, ALL_OF_ANY, ONE_OF_ANY, UNTYPED_ANY,
            FORMATS, PATTERN_KEYS, WHOLE_PATTERN, OPTIONAL_GROUPS, UNREAD, REQUIRED, NAMED_FIRST, STRING_ONE,
            NON_POINTER_REF, UNEVALUATED_FALSE, PATTERN_ADDITIONAL, ESCAPED_NAMES)
#: the formats xgrammar has a regex for (JSONSchemaConverter::JSONFormatToRegexPattern): beside
#: one of them a string's `pattern`, `minLength` and `maxLength` are not read (0.2.9; `iri`
#: and `regex`, which it has none for, leave them read)
XGRAMMAR_FORMATS = frozenset(("email", "date", "time", "date-time", "duration", "ipv4", "ipv6", "hostname", "uuid",
                              "uri", "uri-reference", "uri-template", "json-pointer", "relative-json-pointer"))


def _whole_key(pattern: str) -> str:
    """A pattern as xgrammar matches it (of a key or a string): against the whole text, its
    own `^` and `$` meaning nothing."""
    if pattern.startswith("^"):
        pattern = pattern[1:]
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1]
    return "^(?:%s)$" % pattern


_DATE = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
_TIME = r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)"
_PCHAR = r"([\w.~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})"
_QUERY_CHARS = r"([\w.~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*"
_AUTHORITY = r"(([\w.~!$&'()*+,;=:-]|%[0-9A-Fa-f]{2})*@)?([\w.~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*(:\d*)?"
#: the regexes xgrammar's converter has for formats (cpp/json_schema_converter.cc, the
#: format table), restated: days 01-31 in every month, a URI scheme of letters, `+`, `.`,
#: `-` only, a host without IP literals, lowercase host names
_FORMAT_REGEX = {
    "date": "^%s$" % _DATE,
    "time": "^%s$" % _TIME,
    "date-time": "^%sT%s$" % (_DATE, _TIME),
    "uri": r"^[a-zA-Z][a-zA-Z+.-]*:(//%s(/%s*)*|/?(%s+(/%s*)*)?)(\?%s)?(#%s)?$" % (
        _AUTHORITY, _PCHAR, _PCHAR, _PCHAR, _QUERY_CHARS, _QUERY_CHARS),
    "hostname": r"^([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$",
    "uuid": r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
    "ipv4": r"^((25[0-5]|2[0-4]\d|[01]?\d?\d)\.){3}(25[0-5]|2[0-4]\d|[01]?\d?\d)$",
    # a domain of labels, those after a dot of two characters at least, and no address
    # literal; the quoted local part as maskref's (xgrammar's regex reads the JSON text, its
    # quoted pairs JSON escapes: not restated)
    "email": r'^([\w!#$%&\'*+/=?^`{|}~-]+(\.[\w!#$%&\'*+/=?^`{|}~-]+)*|"([\x20\x21\x23-\x5B\x5D-\x7E]|\\[\x20-\x7E])*")'
             r"@[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9][-A-Za-z0-9]*[A-Za-z0-9])*$",
}


def _optional_groups(pattern: str, whole: bool) -> str:
    """The pattern with its optional groups as xgrammar's `Regex` macro reads them
    (regex_fsm.optional_groups), where that reading, which matches the whole text, says
    what the pattern says otherwise: the pattern is anchored at both ends, or matched
    whole (`whole`, another reading's)."""
    read = optional_groups(pattern)
    anchored = pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$")
    return read if read is not None and (anchored or whole) else pattern


def _pattern_as_xgrammar(pattern: str, readings: FrozenSet[str]) -> str:
    """A string's pattern as xgrammar reads it, with the given readings, in the ECMA-262
    syntax maskref reads patterns in. Its optional groups (regex_fsm.optional_groups) are
    read first, on the pattern's own text; the reading matches the whole string, so alone
    it is taken only for a pattern anchored at both ends."""
    if OPTIONAL_GROUPS in readings:
        pattern = _optional_groups(pattern, WHOLE_PATTERN in readings)
    if PATTERN_CLASSES in readings:
        pattern = write_out_classes(pattern, ASCII_CLASSES) or pattern  # its Regex reader's
    if PATTERN_DOT in readings:
        # its `.` is every character (RegexConverter: [\u0000-\U0010FFFF]); ECMA-262's `[^]`
        pattern = write_out_classes(pattern, {}, dot="[^]") or pattern
    if WHOLE_PATTERN in readings:
        pattern = _whole_key(pattern)
    return pattern


def _one_string_keyword(s: Dict[str, Any]) -> Dict[str, Any]:
    """A string's keywords as JSONSchemaConverter::GenerateString reads them: a format of
    XGRAMMAR_FORMATS alone, else a `pattern` alone, else the lengths; the others unread.

    >>> _one_string_keyword({"type": "string", "pattern": "^a+$", "maxLength": 3})
    {'type': 'string', 'pattern': '^a+$'}
    """
    if s.get("format") in XGRAMMAR_FORMATS:
        unread: Tuple[str, ...] = ("pattern", "minLength", "maxLength")
    elif "pattern" in s:
        unread = ("minLength", "maxLength")
    else:
        return s
    return {k: v for k, v in s.items() if k not in unread}


def _is_object_schema(s: Dict[str, Any]) -> bool:
    """Does xgrammar read the schema object as an object's (its `type` has `object`, or it
    has none and an object keyword)?"""
    t = s.get("type")
    types: List[Any] = t if isinstance(t, list) else [t]
    return "object" in types or "type" not in s and any(k in s for k in _OBJECT_KEYWORDS)


def _read_required(s: Dict[str, Any], readings: FrozenSet[str]) -> Dict[str, Any]:
    """An object schema's `required` as xgrammar reads it (GetPartialRuleForProperties):
    a name `properties` does not name is not required (REQUIRED), and a `required` that is
    not empty lets no other property come first (`allow_additional && required.empty()`),
    so where it names none of the properties, the object begins with one of them: in
    maskref's layout, where named members come first, it has one of them at least
    (NAMED_FIRST, written as an `anyOf` of one-name `required`s).

    >>> s = {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["x"]}
    >>> _read_required(s, frozenset((REQUIRED, NAMED_FIRST)))["required"], _read_required(s, frozenset((NAMED_FIRST,)))["anyOf"]
    ([], [{'required': ['a']}, {'required': ['b']}])
    """
    required, named = s.get("required"), s.get("properties")
    if not isinstance(required, list) or not required or not _is_object_schema(s):
        return s
    named = named if isinstance(named, dict) else {}
    if NAMED_FIRST in readings and named and not any(n in named for n in required):
        one_named = [{"required": [n]} for n in named]
        if "anyOf" in s:
            s = dict(s, allOf=list(s.get("allOf") or []) + [{"anyOf": one_named}])
        else:
            s = dict(s, anyOf=one_named)
    if REQUIRED in readings and not all(n in named for n in required):
        s = dict(s, required=[n for n in required if n in named])
    return s


def is_pointer(ref: str) -> bool:
    """Is a `$ref` one xgrammar resolves: a JSON pointer into the schema itself (`#`,
    `#/...`)? Any other — an `$anchor`'s `#name`, a URI, a URN, a relative `other.json` —
    it reads as any value, its siblings unread."""
    return ref == "#" or ref.startswith("#/")


def _additional(s: Dict[str, Any]) -> Any:
    """The schema of an object's additional properties as xgrammar reads it without
    strict mode: `additionalProperties`, else any value."""
    return s.get("additionalProperties", True)


def _whole_match(pattern: str, key: str) -> bool:
    """Does the key match the pattern as xgrammar matches a patternProperties key (the
    whole key: _whole_key)? False where Python's `re` cannot read the pattern."""
    try:
        return re.fullmatch(_whole_key(pattern), key) is not None
    except re.error:
        return False


def _pattern_additional(s: Dict[str, Any]) -> Dict[str, Any]:
    """An object with both `properties` and `patternProperties` as xgrammar writes it: a
    member is a named property, a pattern property or an additional property, each with
    its own value, and the additional properties' key is any key (the named keys and the
    patterns' keys not left out): a named key's value is its schema, a pattern's that it
    matches whole, or the additional schema; a pattern key's, the pattern's or the
    additional schema (none where additionalProperties is false). Not modelled: a named key
    that a pattern also matches keeps, in maskref's reading, the pattern's schema beside
    (JSON Schema applies both), so where the named schema alone allows a token the reading
    may not explain it.

    >>> _pattern_additional({"properties": {"foo": {"type": "array"}}, "patternProperties": {"f.o": {"minItems": 2}},
    ...                      "additionalProperties": {"type": "integer"}})["properties"]
    {'foo': {'anyOf': [{'type': 'array'}, {'minItems': 2}, {'type': 'integer'}]}}
    """
    named, patterns = s.get("properties"), s.get("patternProperties")
    if not isinstance(named, dict) or not named or not isinstance(patterns, dict) or not patterns:
        return s
    extra = [] if _additional(s) is False else [_additional(s)]
    return dict(s, properties={
        n: {"anyOf": [v] + [p_schema for p, p_schema in patterns.items() if _whole_match(p, n)] + extra}
        for n, v in named.items()}, patternProperties={p: {"anyOf": [v] + extra} for p, v in patterns.items()})


def needs_escape(name: str) -> bool:
    """Does a property name's JSON spelling have an escape (`"`, `\\`, a control character)?"""
    return any(c in '"\\' or c < " " for c in name)


def _escaped_names(s: Dict[str, Any]) -> Dict[str, Any]:
    """An object's named properties whose JSON spelling has an escape as xgrammar reads
    them: its additional properties' key trie leaves out the named keys by their raw text,
    not by their spelling, so `foo\\"bar` is an additional key too: its value is the named
    schema or the additional one (unless additionalProperties is false).

    >>> _escaped_names({"properties": {'a"b': {"type": "integer"}, "c": {}}})["properties"]
    {'a"b': {'anyOf': [{'type': 'integer'}, True]}, 'c': {}}
    """
    named = s.get("properties")
    if not isinstance(named, dict) or _additional(s) is False or not any(needs_escape(n) for n in named):
        return s
    return dict(s, properties={n: {"anyOf": [v, _additional(s)]} if needs_escape(n) else v for n, v in named.items()})


def _read_as_xgrammar(s: Dict[str, Any], readings: FrozenSet[str]) -> Any:
    """One schema object as xgrammar reads it, with the given readings (its subschemas
    already read)."""
    if NON_POINTER_REF in readings and isinstance(s.get("$ref"), str) and not is_pointer(s["$ref"]):
        return {k: v for k, v in s.items() if k in _KEPT}
    s = _read_keywords(s, readings)
    if isinstance(s, dict) and (REQUIRED in readings or NAMED_FIRST in readings):
        s = _read_required(s, readings)
    if isinstance(s, dict) and UNEVALUATED_FALSE in readings and s.get("unevaluatedProperties") is False:
        s = {k: v for k, v in s.items() if k != "unevaluatedProperties"}  # read as absent: the object open
    if isinstance(s, dict) and PATTERN_ADDITIONAL in readings:
        s = _pattern_additional(s)
    if isinstance(s, dict) and ESCAPED_NAMES in readings:
        s = _escaped_names(s)
    return s


def _read_keywords(s: Dict[str, Any], readings: FrozenSet[str]) -> Any:
    """_read_as_xgrammar's readings of a schema object's keywords (all but `required`'s)."""
    if UNREAD in readings and any(k in s for k in _UNREAD):
        s = {k: v for k, v in s.items() if k not in _UNREAD}
    if STRING_ONE in readings:
        s = _one_string_keyword(s)
    if isinstance(s.get("pattern"), str):
        s = dict(s, pattern=_pattern_as_xgrammar(s["pattern"], readings))
    if OPTIONAL_GROUPS in readings and isinstance(s.get("patternProperties"), dict):
        s = dict(s, patternProperties={_optional_groups(p, PATTERN_KEYS in readings): v
                                       for p, v in s["patternProperties"].items()})
    if PATTERN_KEYS in readings and isinstance(s.get("patternProperties"), dict):
        # each pattern matched against the whole key; without properties ("Case 1b" of
        # JSONSchemaConverter) no key but those, whatever additionalProperties says
        s = dict(s, patternProperties={_whole_key(p): v for p, v in s["patternProperties"].items()})
        if not s.get("properties"):
            s["additionalProperties"] = False
    if FORMATS in readings and s.get("format") in _FORMAT_REGEX and "pattern" not in s:
        s = {("pattern" if k == "format" else k): (_FORMAT_REGEX[v] if k == "format" else v) for k, v in s.items()}
    first = next((k for k in _FIRST if k in s), None)
    if first == "allOf" and ALL_OF_ANY in readings and isinstance(s["allOf"], list) and len(s["allOf"]) > 1:
        # GenerateAllOf: "Support for allOf with multiple options is still ongoing" -> any value
        return {k: v for k, v in s.items() if k in _KEPT}
    if first == "oneOf" and ONE_OF_ANY in readings:
        # "oneOf with overlapping or non-provably-disjoint branches ... falling back to anyOf"
        s = {("anyOf" if k == "oneOf" else k): v for k, v in s.items()}
        first = "anyOf"
    if first is not None and (REF_SIBLINGS if first == "$ref" else ONE_KEYWORD) in readings:
        return {k: v for k, v in s.items() if k == first or k in _KEPT}
    if first is None and "type" not in s:
        if any(k in s for k in _OBJECT_KEYWORDS):
            return dict(s, type="object") if UNTYPED in readings else s
        if any(k in s for k in _ARRAY_KEYWORDS):
            return dict(s, type="array") if UNTYPED in readings else s
        if UNTYPED_ANY in readings:  # Parse's last case: AnySpec, the schema's keywords unread
            return {k: v for k, v in s.items() if k in _KEPT}
    return s


class SchemaReading:
    """A schema as xgrammar reads it: the rewritten schema and refimpl's grammars for it
    (the second, with general `\\uXXXX` escapes, made when first asked for)."""

    def __init__(self, spec: GrammarSpec, schema: Any, grammar: Optional[Grammar]) -> None:
        self.spec = spec
        self.schema = schema
        self.grammar = grammar
        self._general: List[Optional[Grammar]] = []
        self._masks: Dict[Tuple[str, Tuple[int, ...]], Optional[Mask]] = {}

    def mask_after(self, d: Divergence) -> Optional[Mask]:
        """refimpl's mask on the reading after the divergence's prefix (None if it refuses
        the prefix); kept, as per-token classification asks again for every differing token."""
        assert self.grammar is not None
        key = (vocab_hash(d.vocab), tuple(d.prefix))
        if key not in self._masks:
            if len(self._masks) > 16:
                self._masks.clear()
            m = Matcher(self.grammar, d.vocab, slices=())
            self._masks[key] = m.mask() if m.consume_tokens(d.prefix) else None
        return self._masks[key]

    def general(self) -> Optional[Grammar]:
        if not self._general:
            try:
                self._general.append(GrammarSpec(self.spec.kind, None, self.schema, dict(
                    self.spec.options, json_allow_general_unicode_escapes=True)).compile())
            except MaskrefError:
                self._general.append(None)
        return self._general[0]


_READ: Dict[Tuple[str, FrozenSet[str]], SchemaReading] = {}


def schema_reading(spec: GrammarSpec, readings: Iterable[str]) -> SchemaReading:
    """The spec's schema read with the given readings; cached by the spec's content (a
    divergence's per-token copies share theirs)."""
    chosen = frozenset(readings)
    key = (spec.key(), chosen)
    hit = _READ.get(key)
    if hit is not None:
        return hit
    read = rewrite_schemas(spec.schema, lambda s: _read_as_xgrammar(s, chosen))
    g: Optional[Grammar] = None
    if read != spec.schema:
        try:
            g = GrammarSpec(spec.kind, None, read, spec.options).compile()
        except MaskrefError:
            g = None
    if len(_READ) > 64:
        _READ.clear()
    hit = _READ[key] = SchemaReading(spec, read, g)
    return hit


def xgrammar_reading(spec: GrammarSpec, readings: Iterable[str]) -> Optional[Grammar]:
    """refimpl's grammar for a JSON-schema vector read as xgrammar reads it (the given
    readings only), or None if refimpl cannot compile that reading or it is the schema."""
    return schema_reading(spec, readings).grammar


def answers_as_read(d: Divergence, reading: SchemaReading) -> bool:
    """core.answers_as with one mask walk: the peer allows exactly what refimpl allows on
    the reading, as far as the differing tokens go; a token only the peer allows may also
    be one that the reading allows once xgrammar's string spellings are respelled
    (json-string-spelling inside the reading)."""
    if d.error is not None or d.refused is not None or d.after_eos or not d.differing() or reading.grammar is None:
        return False
    mask = reading.mask_after(d)
    if mask is None or any(t in mask for t in d.only_refimpl):
        return False
    rest = [t for t in d.only_engine if t not in mask]
    if not rest:
        return True
    general = reading.general()
    if general is None:
        return False
    from refimpl.recognition.recognizer import Recognizer

    text = d.text()
    return all(Recognizer(general.compiled, general.limits).consume_bytes(respelled(text + d.vocab.tokens[t]))
               for t in rest)


def reading_explains(reading: str) -> Callable[[Divergence], bool]:
    """The predicate of one reading: the peer answers as refimpl on the schema read with
    this reading alone; or, readings meeting in one schema, this reading is the one that
    completes the explanation when they are added in READINGS order."""
    def applies(d: Divergence) -> bool:
        if d.grammar.kind != "json_schema" or d.error is not None or d.refused is not None:
            return False
        alone = schema_reading(d.grammar, (reading,))  # no grammar: alone, it changes nothing
        if alone.grammar is not None and answers_as_read(d, alone):
            return True
        i = READINGS.index(reading)
        return i > 0 and answers_as_read(d, schema_reading(d.grammar, READINGS[:i + 1])) and not answers_as_read(
            d, schema_reading(d.grammar, READINGS[:i]))
    return applies


def read_required(schema: Any) -> Any:
    """The whole schema with its objects' `required` as xgrammar reads it (REQUIRED and
    NAMED_FIRST, _read_required)."""
    both = frozenset((REQUIRED, NAMED_FIRST))
    return rewrite_schemas(schema, lambda s: _read_required(s, both))
