"""xgrammar's known differences from maskref, each a predicate that recognises exactly
the documented difference (probed on xgrammar 0.2.8; docs/findings.md, X1–X8).

Semantic: its JSON whitespace, its regex dialect (`compile_regex`: `\\d \\w \\s` ASCII,
`.` any character, newlines too) and its JSON strings (DEL raw, `\\/` and any `\\uXXXX`).
Peer bugs: strings with minLength/maxLength become `[^"\\\\\\r\\n]{m,n}` (raw control
characters, no escapes); a number with bounds gets at most six fraction digits
(`GenerateFloatRangeRegex(..., precision=6)`); integers without -0; UTF-8 encodings of
surrogates in character classes; a crash on some left-recursive grammars; and a mask that
omits tokens its own accept_token takes (the backend's method, as it re-runs xgrammar).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from refimpl import Grammar, Matcher, MaskrefError
from refimpl.masks.mask import Mask
from refimpl.frontends.ebnf.ast import Literal, Node, Ref
from refimpl.frontends.ebnf.compiler import compile_rules
from refimpl.regex import ExprSet

from ..differences import KnownDifference, all_differing, answers_as
from ..divergence import Divergence, compiled
from ..isolation import crashed, timed_out
from ..vectors import GrammarSpec, vocab_hash
from ..readings.grammar_shapes import has_cycle, productive_rules, rewrite, rule_edges
from ..readings.regex_text import ASCII_CLASSES, write_out_classes
from ..readings.json_schemas import NUMBER_BOUNDS, rewrite_schemas, schemas
from ..readings.json_text import (escape_in_string, fraction_digits, number_at, open_string, puts,
                                 raw_control_in_string, respelled, respelling_explains, string_bytes)

JSON_WHITESPACE = b" \n\r\t"

JSON_LAYOUT = KnownDifference(
    "json-whitespace", "semantic",
    "xgrammar's JSON whitespace (any_whitespace, its own separators) differs from "
    "llguidance's flexible whitespace",
    lambda d: d.grammar.kind == "json_schema" and all_differing(d, lambda t: any(b in JSON_WHITESPACE for b in t)),
)


# ----------------------------------------------------------------------------- regex dialect


def _as_macro(pattern: str) -> Optional[str]:
    """The pattern rewritten for xgrammar's `Regex` macro, which maskref reads exactly
    (refimpl/frontends/ebnf/xgrammar_regex.py), so that it means what `compile_regex` makes
    of it (cpp/regex_converter.cc): the two readers differ only in `\\s`, which
    compile_regex extends with U+00A0. None where `\\S` sits inside a class (no
    rewriting without a class difference)."""
    return write_out_classes(pattern, {"s": "\\t-\\r \\u00a0"})


def xgrammar_regex(pattern: str) -> Optional[Grammar]:
    """refimpl's grammar for a regex as xgrammar's compile_regex reads it, or None."""
    macro = _as_macro(pattern)
    if macro is None:
        return None
    literal = macro.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    try:
        return compiled(GrammarSpec("ebnf", 'root ::= Regex("%s")' % literal, options={"dialect": "xgrammar"}))
    except Exception:  # noqa: BLE001 - not a regex xgrammar's macro reads
        return None


def _regex_dialect(d: Divergence) -> bool:
    """The peer answers as refimpl does on the regex read in xgrammar's dialect."""
    if d.grammar.kind != "regex":
        return False
    g = xgrammar_regex(d.grammar.source)
    return g is not None and answers_as(d, g)


REGEX_DIALECT = KnownDifference(
    "regex-dialect", "semantic",
    "xgrammar's compile_regex reads its own dialect: \\d \\w \\s are ASCII (\\s with U+00A0), "
    "`.` matches every character including newlines; maskref reads Rust's regex syntax "
    "(Unicode classes, `.` without \\n)",
    _regex_dialect,
)


# ----------------------------------------------------------------------------- JSON strings


def _json_string_spelling(d: Divergence) -> bool:
    """Only the peer allows the differing tokens, and refimpl allows each of them with
    general `\\uXXXX` escapes on, once raw DELs are written `\\u007f` and `\\/` is `/`."""
    if d.grammar.kind != "json_schema":
        return False
    spec = d.grammar
    return respelling_explains(d, compiled(GrammarSpec(spec.kind, spec.source, spec.schema, dict(
        spec.options, json_allow_general_unicode_escapes=True))))


JSON_STRING_SPELLING = KnownDifference(
    "json-string-spelling", "semantic",
    "xgrammar's JSON strings allow DEL (U+007F) unescaped, the escape \\/ and every \\uXXXX "
    "(unpaired surrogates too); "
    "maskref follows llguidance: DEL only as \\u007f, no \\/, \\u only for control "
    "characters and DEL (docs/jsonschema.md)",
    _json_string_spelling,
)


def _has_length_bounded_string(schema: Any) -> bool:
    return any(("minLength" in s or "maxLength" in s) and "pattern" not in s and "format" not in s
               for s in schemas(schema))


def _length_bounded_strings(d: Divergence) -> bool:
    """In a schema with a length-bounded string, the tokens only the peer allows put a raw
    control character (other than CR, LF) into a string, and the tokens only refimpl
    allows an escape."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or not d.differing():
        return False
    if not _has_length_bounded_string(d.grammar.schema):
        return False
    text, tokens = d.text(), d.vocab.tokens

    def raw_control(b: int, in_string: bool, escaped: bool) -> bool:  # CR and LF: [^"\\\r\n]
        return raw_control_in_string(b, in_string, escaped) and b not in (0x0A, 0x0D)

    return (all(puts(text, tokens[t], raw_control) for t in d.only_engine)
            and all(puts(text, tokens[t], escape_in_string) for t in d.only_refimpl))


LENGTH_BOUNDED_STRINGS = KnownDifference(
    "length-bounded-strings", "peer-bug",
    "xgrammar compiles a string with minLength/maxLength to [^\"\\\\\\r\\n]{m,n}: it allows "
    "raw control characters (invalid JSON) and no escapes at all",
    _length_bounded_strings,
)


# ----------------------------------------------------------------------------- numbers



def _six_fraction_digits(d: Divergence) -> bool:
    """In a schema with a bounded number, every token only refimpl allows (and none only
    the peer allows) makes the number it extends have more than six fraction digits."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any(s.get("type") in ("number", None) and any(k in s for k in NUMBER_BOUNDS) for s in schemas(d.grammar.schema)):
        return False
    text = d.text()
    return all(fraction_digits(number_at(text + d.vocab.tokens[t], len(text))) > 6 for t in d.only_refimpl)


SIX_FRACTION_DIGITS = KnownDifference(
    "six-fraction-digits", "peer-bug",
    "xgrammar writes a number with minimum/maximum as a range regex with at most six "
    "fraction digits (precision=6): 2.1234567 is refused though the schema allows it",
    _six_fraction_digits,
)


def _negative_zero(d: Divergence) -> bool:
    """Every token only refimpl allows writes the 0 of `-0` (and none only the peer allows),
    in a schema with an integer."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any(s.get("type") == "integer" for s in schemas(d.grammar.schema)):
        return False
    text = d.text()
    return all(number_at(text, len(text)) == b"-" and d.vocab.tokens[t][:1] == b"0" for t in d.only_refimpl)


NO_NEGATIVE_ZERO = KnownDifference(
    "no-negative-zero", "peer-bug",
    "xgrammar's JSON integers leave out -0, which JSON and JSON Schema allow (it is the integer 0)",
    _negative_zero, ends_path=True,
)


# ----------------------------------------------------------------------------- UTF-8, grammars


def _as_scalar_values(data: bytes) -> bytes:
    """data with every UTF-8 encoding of a surrogate (ED A0..BF xx) moved to the character
    just below the surrogates (ED 9F xx), so it reads as UTF-8."""
    out = bytearray(data)
    for i in range(len(out) - 1):
        if out[i] == 0xED and 0xA0 <= out[i + 1] <= 0xBF:
            out[i + 1] = 0x9F
    return bytes(out)


def _surrogates(d: Divergence) -> bool:
    """Only the peer allows the differing tokens; after each the text is not UTF-8, and it
    is allowed by refimpl once its surrogate encodings are moved below the surrogates."""
    if d.error or d.refused is not None or d.only_refimpl or not d.only_engine:
        return False
    from refimpl.recognition.recognizer import Recognizer

    g = compiled(d.grammar)
    text = d.text()
    for t in d.only_engine:
        data = text + d.vocab.tokens[t]
        if _as_scalar_values(data) == data or not Recognizer(g.compiled, g.limits).consume_bytes(_as_scalar_values(data)):
            return False
    return True


SURROGATES = KnownDifference(
    "surrogates-as-utf8", "peer-bug",
    "xgrammar's character classes take the UTF-8 encodings of surrogates (ED A0..BF ..), "
    "which are not UTF-8: `[^\\x00-\\x7F]` allows \\xed\\xa0\\x80",
    _surrogates, ends_path=True,
)


def character_grammar_rules(spec: GrammarSpec) -> Dict[str, Node]:
    """The rules of a GBNF vector or an xgrammar-dialect EBNF vector, as maskref reads them."""
    if spec.kind == "gbnf":
        from refimpl.frontends.ebnf.gbnf import parse_rules as gbnf_rules

        return gbnf_rules(spec.source)
    from refimpl.frontends.ebnf.xgrammar import parse_rules

    return parse_rules(spec.source, spec.options.get("root") or "root")


def _crash_on_left_recursion(d: Divergence) -> bool:
    """xgrammar's process died building a grammar in which a rule derives itself at its
    left (possibly through a nullable prefix)."""
    if not crashed(d, "start"):
        return False
    if d.grammar.kind not in ("gbnf", "ebnf"):
        return False
    return has_cycle(rule_edges(character_grammar_rules(d.grammar), ExprSet(), left=True))


CRASH_ON_LEFT_RECURSION = KnownDifference(
    "crash-on-left-recursion", "peer-bug",
    "xgrammar crashes (segmentation fault) compiling some left-recursive grammars, even with "
    "the rule unused: `root ::= \"a\"` with `r1 ::= r1{1,2}`",
    _crash_on_left_recursion, ends_path=True,
)


def _without_unproductive_rules(spec: GrammarSpec) -> Optional[Grammar]:
    """refimpl's grammar for the vector with every reference to a rule that derives no
    string (`r2 ::= r2`) read as ε, as xgrammar reads it; None if there is none."""
    rules = character_grammar_rules(spec)
    dead = set(rules) - productive_rules(rules)
    if not dead:
        return None
    rewrite(rules, spec.source or "", lambda n, _: Literal(-1, "") if isinstance(n, Ref) and n.name in dead else None)
    root = spec.options.get("root") or "root"
    return Grammar(compile_rules(rules, root, spec.source or ""), spec.kind, spec.source)


def _unproductive_rules(d: Divergence) -> bool:
    """The peer answers as refimpl does with the grammar's unproductive rules read as ε."""
    if d.grammar.kind not in ("gbnf", "ebnf"):
        return False
    g = _without_unproductive_rules(d.grammar)
    return g is not None and answers_as(d, g)


UNPRODUCTIVE_RULES = KnownDifference(
    "unproductive-rules-as-empty", "peer-bug",
    "xgrammar reads a reference to a rule that derives no string as the empty string: with "
    "`r2 ::= r2`, `root ::= \"a\"* r2 \"a\" | \"a\"` allows `aaa`",
    _unproductive_rules,
)


def _pattern_without_escapes(d: Divergence) -> bool:
    """In a schema with a string pattern, every token only refimpl allows (none only the
    peer allows) puts an escape into a string."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any("pattern" in s for s in schemas(d.grammar.schema)):
        return False
    text = d.text()
    return all(puts(text, d.vocab.tokens[t], escape_in_string) for t in d.only_refimpl)


def _in_key(text: bytes) -> bool:
    """Does the JSON text end inside an object key (a string opened after `{` or `,`, its
    innermost container an object)?"""
    start = open_string(text)
    if start is None:
        return False
    containers: List[int] = []
    for _, b, in_string, _ in string_bytes(text[:start - 1]):
        if not in_string and b in b"{[":
            containers.append(b)
        elif not in_string and b in b"}]" and containers:
            containers.pop()
    return containers[-1:] == [ord("{")] and text[:start - 1].rstrip()[-1:] in (b"{", b",")


def _key_without_escapes(d: Divergence) -> bool:
    """The text ends inside an object key, and every token only refimpl allows (none only
    the peer allows) puts an escape into it."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    text = d.text()
    if not _in_key(text):
        return False
    return all(puts(text, d.vocab.tokens[t], escape_in_string) for t in d.only_refimpl)


KEY_WITHOUT_ESCAPES = KnownDifference(
    "key-without-escapes", "peer-bug",
    "xgrammar writes the key of a property the schema does not name (its key trie, "
    "BuildTrieBody) without escapes: `\\` cannot begin an escape there, so keys holding `\"` "
    "or `\\` cannot be written (SchemaStore's httpmockrc, odgs-ontology-graph)",
    _key_without_escapes,
)


PATTERN_WITHOUT_ESCAPES = KnownDifference(
    "pattern-without-escapes", "peer-bug",
    "xgrammar matches a string `pattern` against the JSON text between the quotes with escapes "
    "removed from the alphabet: no escape is allowed, so `\"` and `\\\\` (which the pattern may "
    "allow) cannot be written",
    _pattern_without_escapes,
)


def _no_answer_on_left_recursion(d: Divergence) -> bool:
    """xgrammar did not answer in time on a left-recursive grammar."""
    if not timed_out(d) or d.grammar.kind not in ("gbnf", "ebnf"):
        return False
    return has_cycle(rule_edges(character_grammar_rules(d.grammar), ExprSet(), left=True))


NO_ANSWER_ON_LEFT_RECURSION = KnownDifference(
    "no-answer-on-left-recursion", "peer-bug",
    "xgrammar does not answer (a mask takes more than 30 s) on some ambiguous left-recursive "
    "grammars that refimpl answers at once",
    _no_answer_on_left_recursion, ends_path=True,
)


# ----------------------------------------------------------------------------- xgrammar's reading of a schema

#: the keywords xgrammar's SchemaParser::Parse (cpp/json_schema_converter.cc) tries in this
#: order: the first one present decides the schema, the keywords beside it are not read
_FIRST = ("$ref", "const", "enum", "anyOf", "oneOf", "allOf")
#: keywords no reading drops: annotations, and the definitions references point into
_KEPT = frozenset(("$schema", "$id", "id", "$anchor", "$comment", "title", "description", "default", "examples",
                   "deprecated", "readOnly", "writeOnly", "definitions", "$defs"))
_OBJECT_KEYWORDS = ("properties", "additionalProperties", "unevaluatedProperties")
_ARRAY_KEYWORDS = ("items", "prefixItems", "unevaluatedItems")
#: keywords xgrammar does not read: it warns of the first six (SchemaParser::Parse's
#: WarnUnsupportedKeywords) and silently ignores draft 4's `dependencies`
_UNREAD = ("not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies")

#: the readings: each a difference of xgrammar's schema parser from JSON Schema
(REF_SIBLINGS, UNTYPED, PATTERN_CLASSES, ONE_KEYWORD, ALL_OF_ANY, ONE_OF_ANY, UNTYPED_ANY, FORMATS, PATTERN_KEYS,
 WHOLE_PATTERN, UNREAD) = ("ref-siblings", "untyped", "pattern-classes", "one-keyword", "allof-any",
                           "oneof-anyof", "untyped-any", "formats", "pattern-keys", "whole-pattern", "unread")
#: in the order the predicates add them up (semantic readings first)
READINGS = (REF_SIBLINGS, UNTYPED, PATTERN_CLASSES, ONE_KEYWORD, ALL_OF_ANY, ONE_OF_ANY, UNTYPED_ANY, FORMATS,
            PATTERN_KEYS, WHOLE_PATTERN, UNREAD)


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
}


def _read_as_xgrammar(s: Dict[str, Any], readings: FrozenSet[str]) -> Any:
    """One schema object as xgrammar reads it, with the given readings (its subschemas
    already read)."""
    if UNREAD in readings and any(k in s for k in _UNREAD):
        s = {k: v for k, v in s.items() if k not in _UNREAD}
    if PATTERN_CLASSES in readings and isinstance(s.get("pattern"), str):
        ascii_pattern = write_out_classes(s["pattern"], ASCII_CLASSES)  # its Regex reader's
        if ascii_pattern is not None:
            s = dict(s, pattern=ascii_pattern)
    if WHOLE_PATTERN in readings and isinstance(s.get("pattern"), str):
        s = dict(s, pattern=_whole_key(s["pattern"]))
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


class _Reading:
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
            self._masks[key] = m.mask() if m.consume_tokens(d.prefix) == len(d.prefix) else None
        return self._masks[key]

    def general(self) -> Optional[Grammar]:
        if not self._general:
            try:
                self._general.append(GrammarSpec(self.spec.kind, None, self.schema, dict(
                    self.spec.options, json_allow_general_unicode_escapes=True)).compile())
            except MaskrefError:
                self._general.append(None)
        return self._general[0]


_READ: Dict[Tuple[str, FrozenSet[str]], _Reading] = {}


def _reading(spec: GrammarSpec, readings: Iterable[str]) -> _Reading:
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
    hit = _READ[key] = _Reading(spec, read, g)
    return hit


def xgrammar_reading(spec: GrammarSpec, readings: Iterable[str]) -> Optional[Grammar]:
    """refimpl's grammar for a JSON-schema vector read as xgrammar reads it (the given
    readings only), or None if refimpl cannot compile that reading or it is the schema."""
    return _reading(spec, readings).grammar


def answers_as_read(d: Divergence, reading: _Reading) -> bool:
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


def _reading_explains(reading: str) -> Callable[[Divergence], bool]:
    """The predicate of one reading: the peer answers as refimpl on the schema read with
    this reading alone; or, readings meeting in one schema, this reading is the one that
    completes the explanation when they are added in READINGS order."""
    def applies(d: Divergence) -> bool:
        if d.grammar.kind != "json_schema" or d.error is not None or d.refused is not None:
            return False
        alone = _reading(d.grammar, (reading,))
        if alone.grammar is None:
            return False
        if answers_as_read(d, alone):
            return True
        i = READINGS.index(reading)
        return i > 0 and answers_as_read(d, _reading(d.grammar, READINGS[:i + 1])) and not answers_as_read(
            d, _reading(d.grammar, READINGS[:i]))
    return applies


REF_SIBLINGS_IGNORED = KnownDifference(
    "ref-siblings-ignored", "semantic",
    "xgrammar reads only `$ref` in a schema that has one, as drafts 4 to 7 say (the keywords "
    "beside it are ignored); maskref applies them too, as 2019-09 and later do",
    _reading_explains(REF_SIBLINGS),
)

ONE_KEYWORD_PER_SCHEMA = KnownDifference(
    "one-keyword-per-schema", "peer-bug",
    "xgrammar reads one of const, enum, anyOf, oneOf, allOf (in this order) in a schema and "
    "ignores every keyword beside it: {\"type\": \"string\", \"enum\": [null, \"a\"]} allows null",
    _reading_explains(ONE_KEYWORD),
)

ALL_OF_AS_ANY = KnownDifference(
    "allof-as-any", "peer-bug",
    "xgrammar reads an allOf of two or more schemas as any JSON value (\"Support for allOf with "
    "multiple options is still ongoing\"): {\"allOf\": [{\"type\": \"object\"}, {\"type\": \"object\"}]} allows 1",
    _reading_explains(ALL_OF_ANY),
)

UNTYPED_AS_TYPED = KnownDifference(
    "untyped-object-keywords", "semantic",
    "xgrammar reads a schema without `type` that has properties/additionalProperties (items/"
    "prefixItems) as an object (array) only; in JSON Schema these keywords constrain objects "
    "(arrays) and let every other value pass, as maskref reads them",
    _reading_explains(UNTYPED),
)

UNTYPED_KEYWORDS_UNREAD = KnownDifference(
    "untyped-keywords-unread", "peer-bug",
    "xgrammar reads a schema with neither type nor properties/additionalProperties/items/"
    "prefixItems (nor $ref, const, enum, anyOf, oneOf, allOf) as any value, its keywords unread: "
    "{\"required\": [\"a\"]} allows {} and {\"minLength\": 3} allows \"ab\"",
    _reading_explains(UNTYPED_ANY),
)

FORMAT_REGEXES = KnownDifference(
    "format-regexes", "peer-bug",
    "xgrammar's regexes for formats are inexact: `date` allows 2023-02-29 and 2024-02-31, `uri` "
    "refuses a scheme with digits (`h2c:x`) and IP literals (`http://[::1]`), `hostname` refuses "
    "capitals",
    _reading_explains(FORMATS),
)

PATTERN_CLASSES_ASCII = KnownDifference(
    "pattern-classes-ascii", "semantic",
    "xgrammar reads a JSON-schema pattern in its own regex dialect: `\\d \\w \\s` are ASCII, so "
    "`\\s` takes no U+00A0, U+2028 or U+FEFF; maskref reads patterns as Rust regexes (Unicode "
    "classes; ECMA-262's `\\s` is Unicode too)",
    _reading_explains(PATTERN_CLASSES),
)

KEYWORDS_UNREAD = KnownDifference(
    "keywords-unread", "peer-bug",
    "xgrammar does not read `not`, `if`/`then`/`else`, `dependentRequired` and `dependentSchemas` "
    "(it warns so) nor draft 4's `dependencies` (silently): with `if` a property's const, `then` "
    "restricting another, every value of the other is allowed",
    _reading_explains(UNREAD),
)

PATTERN_KEYS_ONLY = KnownDifference(
    "pattern-keys-only", "peer-bug",
    "xgrammar matches a patternProperties pattern against the whole key, and without properties "
    "allows no other key: {\"type\": \"object\", \"patternProperties\": {\"^_\": {}}} allows only "
    "the key `_`; in JSON Schema `^_` is any key that begins with `_`, and other keys are "
    "additional properties",
    _reading_explains(PATTERN_KEYS),
)

WHOLE_STRING_PATTERN = KnownDifference(
    "whole-string-pattern", "peer-bug",
    "xgrammar matches a string's `pattern` against the whole string, its `^` and `$` ignored; "
    "JSON Schema's patterns are unanchored searches: `^https?://` allows any text after "
    "`https://`, xgrammar only the closing quote",
    _reading_explains(WHOLE_PATTERN),
)

ONE_OF_AS_ANY_OF = KnownDifference(
    "oneof-as-anyof", "peer-bug",
    "xgrammar reads a oneOf whose options it cannot prove disjoint as anyOf (\"falling back to "
    "anyOf semantics\"): a value valid under two options is allowed",
    _reading_explains(ONE_OF_ANY),
)
