"""xgrammar's known differences from maskref, each declared over the predicate that
recognises exactly the documented difference (probed on xgrammar 0.2.8, and 0.2.9 for X12,
X13; docs/findings.md, X1-X13), tried in the order declared.

Semantic: its JSON whitespace, its regex dialect (`compile_regex`: `\\d \\w \\s` ASCII,
`.` any character, newlines too, a `]` outside a class itself; in JSON-schema patterns
too) and its JSON strings (DEL raw, `\\/` and any `\\uXXXX`).
Peer bugs: strings with minLength/maxLength become `[^"\\\\\\r\\n]{m,n}` (raw control
characters, no escapes); a number with bounds gets at most six fraction digits
(`GenerateFloatRangeRegex(..., precision=6)`); integers without -0; UTF-8 encodings of
surrogates in character classes; a crash on some left-recursive grammars; a mask that
omits tokens its own accept_token takes (asked again, in a fresh session); and its
reading of JSON schemas (reading.py), one known difference per way it reads them.
"""
from __future__ import annotations

from typing import Any

from refimpl import Matcher
from refimpl.regex import ExprSet

from ...differences import AFTER_EOS, LENIENT_SCHEMA, KnownDifferences, accepted_refused, all_differing, answers_as
from ...divergence import Divergence, compiled, utf8_prefix
from ...isolation import crashed, timed_out
from ...readings.grammar_shapes import has_cycle, rule_edges
from ...readings.json_schemas import NUMBER_BOUNDS, schemas
from ...readings.json_text import (
    escape_in_string,
    fraction_digits,
    in_key,
    number_at,
    puts,
    raw_control_in_string,
    respelling_explains,
    whitespace_between_tokens,
)
from ...vectors import GrammarSpec
from .reading import (
    ALL_OF_ANY,
    FORMATS,
    ONE_KEYWORD,
    ONE_OF_ANY,
    OPTIONAL_GROUPS,
    PATTERN_CLASSES,
    PATTERN_DOT,
    PATTERN_KEYS,
    REF_SIBLINGS,
    UNREAD,
    UNTYPED,
    UNTYPED_ANY,
    WHOLE_PATTERN,
    character_grammar_rules,
    reading_explains,
    without_unproductive_rules,
    xgrammar_regex,
)
from .session import start

KNOWN_DIFFERENCES = KnownDifferences(AFTER_EOS, LENIENT_SCHEMA)


@KNOWN_DIFFERENCES.declare(
    "regex-identity-escapes", "semantic",
    "xgrammar reads a regex's unknown escape as ECMAScript does without the u flag (Annex B): "
    "`\\q` is the letter q, `\\xZZ` the text xZZ; refimpl reads Rust's syntax, where both are errors")
def regex_identity_escapes(d: Divergence) -> bool:
    return d.grammar.kind == "regex" and (accepted_refused(d) or "").startswith("RegexError")


@KNOWN_DIFFERENCES.declare(
    "tag-dispatch-bytes", "semantic",
    "xgrammar's TagDispatch reads its free text as bytes: it allows a token after which the text is "
    "not UTF-8 (a lone continuation byte, F5-FF); maskref's free text is Unicode text, as every other "
    "part of a grammar (refimpl/frontends/ebnf/xgrammar_dispatch.py, docs/ebnf.md)")
def tag_dispatch_bytes(d: Divergence) -> bool:
    """A TagDispatch grammar where every differing token is one of xgrammar's after which
    the text cannot be UTF-8."""
    text = d.text()
    return (d.grammar.kind == "ebnf" and "TagDispatch(" in (d.grammar.source or "") and d.error is None
            and d.refused is None and not d.only_refimpl and bool(d.only_engine)
            and all(not utf8_prefix(text + d.vocab.tokens[t]) for t in d.only_engine))


_TOKEN_MACROS = ("ExcludeToken(", "TokenTagDispatch(")


@KNOWN_DIFFERENCES.declare(
    "eos-before-exclude-token", "semantic",
    "xgrammar reads a stop token (EOS) only as the end of the output, never as a token of "
    "ExcludeToken(ids...) (or of TokenTagDispatch's free tokens): after `a` in `root ::= \"a\" "
    "ExcludeToken(1) \"b\"` it refuses EOS, and where the output may end EOS ends it; maskref reads a "
    "token by id first wherever a token lexeme may take it (docs/semantics.md, \"Reading a token\"; "
    "docs/findings.md, X16)",
    ends_path=True)
def eos_before_exclude_token(d: Divergence) -> bool:
    """An xgrammar EBNF with ExcludeToken or TokenTagDispatch, where refimpl alone allows
    tokens: EOS alone, in a state where the output may not end (refimpl would read it as an
    excluded-token's token); or anything, after an EOS of the prefix that refimpl read as
    such a token where the output could end (xgrammar ended the output there)."""
    if d.grammar.kind != "ebnf" or not any(m in (d.grammar.source or "") for m in _TOKEN_MACROS):
        return False
    if d.only_engine or not d.only_refimpl or d.error or d.refused is not None:
        return False
    eos = set(d.vocab.eos_token_ids)
    m = d.replay()
    if m is None or m.eos_consumed:
        return False
    if d.prefix and d.prefix[-1] in eos:
        before = Matcher(compiled(d.grammar), d.vocab, slices=())
        return before.consume_tokens(d.prefix[:-1]) and before.recognizer.is_accepting()
    return set(d.only_refimpl) <= eos and not m.recognizer.is_accepting()


@KNOWN_DIFFERENCES.declare(
    "json-whitespace", "semantic",
    "xgrammar's JSON whitespace (any_whitespace, its own separators) differs from "
    "llguidance's flexible whitespace")
def json_whitespace(d: Divergence) -> bool:
    """Every token where the two differ writes JSON whitespace between tokens, after the
    text so far (a raw tab or newline inside a string is a string's rule, not this one)."""
    if d.grammar.kind != "json_schema":
        return False
    text = d.text()
    return all_differing(d, lambda t: puts(text, t, whitespace_between_tokens))


# -------------------------------------------------------------------------------- regex dialect


@KNOWN_DIFFERENCES.declare(
    "regex-dialect", "semantic",
    "xgrammar's compile_regex reads its own dialect: \\d \\w \\s are ASCII (\\s with U+00A0), "
    "`.` matches every character including newlines; maskref reads Rust's regex syntax "
    "(Unicode classes, `.` without \\n)")
def regex_dialect(d: Divergence) -> bool:
    """The peer answers as refimpl does on the regex read in xgrammar's dialect."""
    if d.grammar.kind != "regex":
        return False
    g = xgrammar_regex(d.grammar.source)
    return g is not None and answers_as(d, g)


# --------------------------------------------------------------------------------- JSON strings


@KNOWN_DIFFERENCES.declare(
    "json-string-spelling", "semantic",
    "xgrammar's JSON strings allow DEL (U+007F) unescaped, the escape \\/ and every \\uXXXX "
    "(unpaired surrogates too); "
    "maskref follows llguidance: DEL only as \\u007f, no \\/, \\u only for control "
    "characters and DEL (docs/jsonschema.md)")
def json_string_spelling(d: Divergence) -> bool:
    """Only the peer allows the differing tokens, and refimpl allows each of them with
    general `\\uXXXX` escapes on, once raw DELs are written `\\u007f` and `\\/` is `/`."""
    if d.grammar.kind != "json_schema":
        return False
    spec = d.grammar
    return respelling_explains(d, compiled(GrammarSpec(spec.kind, spec.source, spec.schema, dict(
        spec.options, json_allow_general_unicode_escapes=True))))


def _has_length_bounded_string(schema: Any) -> bool:
    return any(("minLength" in s or "maxLength" in s) and "pattern" not in s and "format" not in s
               for s in schemas(schema))


@KNOWN_DIFFERENCES.declare(
    "length-bounded-strings", "peer-bug",
    "xgrammar compiles a string with minLength/maxLength to [^\"\\\\\\r\\n]{m,n}: it allows "
    "raw control characters (invalid JSON) and no escapes at all",
    cites=("JSON Schema 2020-12 Validation §6.3.1-6.3.2 maxLength/minLength (characters of the string's value) "
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 8259 (JSON) §7 Strings: control '
           'characters U+0000-U+001F must be escaped; any character may be escaped '
           '(https://www.rfc-editor.org/rfc/rfc8259)'))
def length_bounded_strings(d: Divergence) -> bool:
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


# -------------------------------------------------------------------------------------- numbers


@KNOWN_DIFFERENCES.declare(
    "six-fraction-digits", "peer-bug",
    "xgrammar writes a number with minimum/maximum as a range regex with at most six "
    "fraction digits (precision=6): 2.1234567 is refused though the schema allows it",
    cites=('JSON Schema 2020-12 Validation §6.2.2-6.2.5 minimum/maximum (any number in range) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 8259 (JSON) §6 Numbers (number '
           '= [ minus ] int [ frac ] [ exp ]; frac = decimal-point 1*DIGIT) '
           '(https://www.rfc-editor.org/rfc/rfc8259)'))
def six_fraction_digits(d: Divergence) -> bool:
    """In a schema with a bounded number, every token only refimpl allows (and none only
    the peer allows) makes the number it extends have more than six fraction digits."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any(s.get("type") in ("number", None) and any(k in s for k in NUMBER_BOUNDS) for s in schemas(d.grammar.schema)):
        return False
    text = d.text()
    return all(fraction_digits(number_at(text + d.vocab.tokens[t], len(text))) > 6 for t in d.only_refimpl)


@KNOWN_DIFFERENCES.declare(
    "no-negative-zero", "peer-bug",
    "xgrammar's JSON integers leave out -0, which JSON and JSON Schema allow (it is the integer 0)",
    ends_path=True,
    cites=('RFC 8259 (JSON) §6 Numbers (number = [ minus ] int [ frac ] [ exp ]; frac = decimal-point 1*DIGIT) '
           '(https://www.rfc-editor.org/rfc/rfc8259) allows -0; JSON Schema 2020-12 Validation §6.1.1 type '
           'integer: any number with a zero fractional part '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def negative_zero(d: Divergence) -> bool:
    """Every token only refimpl allows writes the 0 of `-0` (and none only the peer allows),
    in a schema with an integer."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    if not any(s.get("type") == "integer" for s in schemas(d.grammar.schema)):
        return False
    text = d.text()
    return all(number_at(text, len(text)) == b"-" and d.vocab.tokens[t][:1] == b"0" for t in d.only_refimpl)


# ------------------------------------------------------------------------------ UTF-8, grammars


def _as_scalar_values(data: bytes) -> bytes:
    """data with every UTF-8 encoding of a surrogate (ED A0..BF xx) moved to the character
    just below the surrogates (ED 9F xx), so it reads as UTF-8."""
    out = bytearray(data)
    for i in range(len(out) - 1):
        if out[i] == 0xED and 0xA0 <= out[i + 1] <= 0xBF:
            out[i + 1] = 0x9F
    return bytes(out)


@KNOWN_DIFFERENCES.declare(
    "surrogates-as-utf8", "peer-bug",
    "xgrammar's character classes take the UTF-8 encodings of surrogates (ED A0..BF ..), "
    "which are not UTF-8: `[^\\x00-\\x7F]` allows \\xed\\xa0\\x80",
    ends_path=True,
    cites=('RFC 3629 (UTF-8) §3: no encodings of the surrogates U+D800-U+DFFF '
           '(https://www.rfc-editor.org/rfc/rfc3629#section-3)'))
def surrogates(d: Divergence) -> bool:
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


@KNOWN_DIFFERENCES.declare(
    "crash-on-left-recursion", "peer-bug",
    "xgrammar crashes (segmentation fault) compiling some left-recursive grammars, even with "
    "the rule unused: `root ::= \"a\"` with `r1 ::= r1{1,2}`",
    ends_path=True,
    cites=("xgrammar's EBNF (https://xgrammar.mlc.ai/docs/tutorials/ebnf_guided_generation.html); a grammar the "
           'format accepts must be compiled and answered, not crash or hang'))
def crash_on_left_recursion(d: Divergence) -> bool:
    """xgrammar's process died building a grammar in which a rule derives itself at its
    left (possibly through a nullable prefix)."""
    if not crashed(d, "start"):
        return False
    if d.grammar.kind not in ("gbnf", "ebnf"):
        return False
    return has_cycle(rule_edges(character_grammar_rules(d.grammar), ExprSet(), left=True))


@KNOWN_DIFFERENCES.declare(
    "unproductive-rules-as-empty", "peer-bug",
    "xgrammar reads a reference to a rule that derives no string as the empty string: with "
    "`r2 ::= r2`, `root ::= \"a\"* r2 \"a\" | \"a\"` allows `aaa`",
    cites=("xgrammar's EBNF (https://xgrammar.mlc.ai/docs/tutorials/ebnf_guided_generation.html): a rule that "
           'derives no string adds none to the language'))
def unproductive_rules(d: Divergence) -> bool:
    """The peer answers as refimpl does with the grammar's unproductive rules read as ε."""
    if d.grammar.kind not in ("gbnf", "ebnf"):
        return False
    g = without_unproductive_rules(d.grammar)
    return g is not None and answers_as(d, g)


@KNOWN_DIFFERENCES.declare(
    "pattern-without-escapes", "peer-bug",
    "xgrammar matches a string `pattern` against the JSON text between the quotes with escapes "
    "removed from the alphabet: no escape is allowed, so `\"` and `\\\\` (which the pattern may "
    "allow) cannot be written, and a control character the pattern allows is written raw (invalid "
    "JSON): `^\\t$` takes a raw tab, not `\\t`",
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation); RFC 8259 '
           '(JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be escaped '
           '(https://www.rfc-editor.org/rfc/rfc8259)'))
def pattern_without_escapes(d: Divergence) -> bool:
    """In a schema with a string pattern, every token only refimpl allows puts an escape
    into a string, and every token only the peer allows a raw control character."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or not d.only_refimpl:
        return False
    if not any("pattern" in s for s in schemas(d.grammar.schema)):
        return False
    text = d.text()
    return (all(puts(text, d.vocab.tokens[t], escape_in_string) for t in d.only_refimpl)
            and all(puts(text, d.vocab.tokens[t], raw_control_in_string) for t in d.only_engine))


@KNOWN_DIFFERENCES.declare(
    "no-answer-on-left-recursion", "peer-bug",
    "xgrammar does not answer (a mask takes more than 30 s) on some ambiguous left-recursive "
    "grammars that refimpl answers at once",
    ends_path=True,
    cites=("xgrammar's EBNF (https://xgrammar.mlc.ai/docs/tutorials/ebnf_guided_generation.html); a grammar the "
           'format accepts must be compiled and answered, not crash or hang'))
def no_answer_on_left_recursion(d: Divergence) -> bool:
    """xgrammar did not answer in time on a left-recursive grammar."""
    if not timed_out(d) or d.grammar.kind not in ("gbnf", "ebnf"):
        return False
    return has_cycle(rule_edges(character_grammar_rules(d.grammar), ExprSet(), left=True))


# --------------------------------------------------------------- xgrammar's reading of a schema


KNOWN_DIFFERENCES.declare(
    "ref-siblings-ignored", "semantic",
    "xgrammar reads only `$ref` in a schema that has one, as drafts 4 to 7 say (the keywords "
    "beside it are ignored); maskref applies them too, as 2019-09 and later do",
)(reading_explains(REF_SIBLINGS))


KNOWN_DIFFERENCES.declare(
    "untyped-object-keywords", "semantic",
    "xgrammar reads a schema without `type` that has properties/additionalProperties (items/"
    "prefixItems) as an object (array) only; in JSON Schema these keywords constrain objects "
    "(arrays) and let every other value pass, as maskref reads them",
)(reading_explains(UNTYPED))


KNOWN_DIFFERENCES.declare(
    "allof-as-any", "peer-bug",
    "xgrammar reads an allOf of two or more schemas as any JSON value (\"Support for allOf with "
    "multiple options is still ongoing\"): {\"allOf\": [{\"type\": \"object\"}, {\"type\": \"object\"}]} allows 1",
    cites=('JSON Schema 2020-12 Core §10.2.1.1 allOf: valid against every subschema '
           '(https://json-schema.org/draft/2020-12/json-schema-core)')
)(reading_explains(ALL_OF_ANY))


KNOWN_DIFFERENCES.declare(
    "one-keyword-per-schema", "peer-bug",
    "xgrammar reads one of const, enum, anyOf, oneOf, allOf (in this order) in a schema and "
    "ignores every keyword beside it: {\"type\": \"string\", \"enum\": [null, \"a\"]} allows null",
    cites=("JSON Schema 2020-12 Core §7.6 keywords are applied independently (all of a schema's keywords apply) "
           '(https://json-schema.org/draft/2020-12/json-schema-core)')
)(reading_explains(ONE_KEYWORD))


KNOWN_DIFFERENCES.declare(
    "oneof-as-anyof", "peer-bug",
    "xgrammar reads a oneOf whose options it cannot prove disjoint as anyOf (\"falling back to "
    "anyOf semantics\"): a value valid under two options is allowed",
    cites=('JSON Schema 2020-12 Core §10.2.1.3 oneOf: valid against exactly one subschema '
           '(https://json-schema.org/draft/2020-12/json-schema-core)')
)(reading_explains(ONE_OF_ANY))


KNOWN_DIFFERENCES.declare(
    "untyped-keywords-unread", "peer-bug",
    "xgrammar reads a schema with neither type nor properties/additionalProperties/items/"
    "prefixItems (nor $ref, const, enum, anyOf, oneOf, allOf) as any value, its keywords unread: "
    "{\"required\": [\"a\"]} allows {} and {\"minLength\": 3} allows \"ab\"",
    cites=('JSON Schema 2020-12 Validation §6 (each keyword constrains the instances of its type, whatever '
           '`type` says) (https://json-schema.org/draft/2020-12/json-schema-validation)')
)(reading_explains(UNTYPED_ANY))


KNOWN_DIFFERENCES.declare(
    "format-regexes", "peer-bug",
    "xgrammar's regexes for formats are inexact: `date` allows 2023-02-29 and 2024-02-31, `uri` "
    "refuses a scheme with digits (`h2c:x`) and IP literals (`http://[::1]`), `hostname` refuses "
    "capitals",
    cites=('JSON Schema 2020-12 Validation §7.3 formats (date: RFC 3339 full-date; uri: RFC 3986; hostname: RFC '
           '1123) (https://json-schema.org/draft/2020-12/json-schema-validation)')
)(reading_explains(FORMATS))


KNOWN_DIFFERENCES.declare(
    "pattern-keys-only", "peer-bug",
    "xgrammar matches a patternProperties pattern against the whole key, and without properties "
    "allows no other key: {\"type\": \"object\", \"patternProperties\": {\"^_\": {}}} allows only "
    "the key `_`; in JSON Schema `^_` is any key that begins with `_`, and other keys are "
    "additional properties",
    cites=('JSON Schema 2020-12 Core §10.3.2.2 patternProperties (unanchored regexes) and §10.3.2.3 '
           'additionalProperties (https://json-schema.org/draft/2020-12/json-schema-core)')
)(reading_explains(PATTERN_KEYS))


KNOWN_DIFFERENCES.declare(
    "whole-string-pattern", "peer-bug",
    "xgrammar matches a string's `pattern` against the whole string, its `^` and `$` ignored; "
    "JSON Schema's patterns are unanchored searches: `^https?://` allows any text after "
    "`https://`, xgrammar only the closing quote",
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation)')
)(reading_explains(WHOLE_PATTERN))


KNOWN_DIFFERENCES.declare(
    "optional-group-loops", "peer-bug",
    "in a JSON schema's `pattern` (its `Regex` macro), xgrammar builds `x?` with an ε from x's first "
    "state to its first final state, and `x+` by looping back to x's first state, neither with a "
    "fresh state: a loop at the start of an optional group (`b+`, `b*`) or at its end (`(/a*)*`) lets "
    "the rest of the group be skipped: `^a(b+c)?$` accepts `ab`, `^[a-z]([a-z0-9_-]*[a-z])?$` "
    "`ng-`, `^/(a+(/a*)*)?$` `//` (docs/findings.md, X14; compile_regex is right)",
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); ECMA-262 §22.2.2.3.1 '
           'RepeatMatcher (`?` is {0,1}) (https://tc39.es/ecma262/#sec-runtime-semantics-repeatmatcher-abstract-operation)')
)(reading_explains(OPTIONAL_GROUPS))


KNOWN_DIFFERENCES.declare(
    "pattern-classes-ascii", "semantic",
    "xgrammar reads a JSON-schema pattern in its own regex dialect: `\\d \\w \\s` are ASCII, so "
    "`\\s` takes no U+00A0, U+2028 or U+FEFF; maskref reads patterns as Rust regexes (Unicode "
    "classes; ECMA-262's `\\s` is Unicode too)",
)(reading_explains(PATTERN_CLASSES))


KNOWN_DIFFERENCES.declare(
    "pattern-dot-any", "semantic",
    "xgrammar reads a JSON-schema pattern in its own regex dialect, where `.` is every character: "
    "`^.{0,2}$` takes U+2028 and U+2029; JSON Schema's patterns are ECMA-262's, whose `.` leaves out "
    "the line terminators \\n, \\r, U+2028 and U+2029, as maskref reads them",
)(reading_explains(PATTERN_DOT))


@KNOWN_DIFFERENCES.declare(
    "key-without-escapes", "peer-bug",
    "xgrammar writes the key of a property the schema does not name (its key trie, "
    "BuildTrieBody) without escapes: `\\` cannot begin an escape there, so keys holding `\"` "
    "or `\\` cannot be written (SchemaStore's httpmockrc, odgs-ontology-graph)",
    cites=('RFC 8259 (JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be '
           'escaped (https://www.rfc-editor.org/rfc/rfc8259) (object keys are strings)'))
def key_without_escapes(d: Divergence) -> bool:
    """The text ends inside an object key, and every token only refimpl allows (none only
    the peer allows) puts an escape into it."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    text = d.text()
    if not in_key(text):
        return False
    return all(puts(text, d.vocab.tokens[t], escape_in_string) for t in d.only_refimpl)


KNOWN_DIFFERENCES.declare(
    "keywords-unread", "peer-bug",
    "xgrammar does not read `not`, `if`/`then`/`else`, `dependentRequired` and `dependentSchemas` "
    "(it warns so) nor draft 4's `dependencies` (silently), nor `contains`, `minContains` and "
    "`maxContains` (without strict mode): with `if` a property's const, `then` restricting another, every "
    "value of the other is allowed",
    cites=('JSON Schema 2020-12 Core §10.2.2 if/then/else, §10.2.2.4 dependentSchemas, §10.2.1.4 not '
           '(https://json-schema.org/draft/2020-12/json-schema-core); JSON Schema 2020-12 Validation §6.5.4 '
           'dependentRequired, §6.4.4-5 minContains/maxContains '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)')
)(reading_explains(UNREAD))


@KNOWN_DIFFERENCES.declare(
    "mask-omits-accepted-token", "peer-bug",
    "xgrammar's mask leaves out tokens that its own accept_token accepts in the same state "
    "(`root ::= root [^a] | \"\"` does not allow `bb` at the start, though it accepts it)",
    cites=("xgrammar's GrammarMatcher docs: fill_next_token_bitmask gives the tokens accept_token accepts "
           '(https://xgrammar.mlc.ai/docs/api/python/index.html)'))
def accepts_omitted(d: Divergence, strict_mode: bool = False) -> bool:
    """refimpl allows tokens xgrammar's mask lacks, and a fresh xgrammar matcher after
    the same prefix accepts each of them (run here, in the comparing process; JSON schemas
    compiled with `strict_mode`, as the engine compiled them)."""
    if d.error is not None or d.refused is not None or d.only_engine or not d.only_refimpl:
        return False
    for t in d.only_refimpl:
        session = start(d.grammar, d.vocab, strict_mode)
        if not all(session.consume(p) for p in d.prefix) or not session.consume(t):
            return False
    return True


# the differences first met on MaskBench (maskbench.py), tried last
from .maskbench import MASKBENCH_DIFFERENCES  # noqa: E402

KNOWN_DIFFERENCES.extend(MASKBENCH_DIFFERENCES)

# ... and those first met on the JSON-Schema-Test-Suite (json_schema_test_suite.py), after them
from .json_schema_test_suite import JSON_SCHEMA_TEST_SUITE_DIFFERENCES  # noqa: E402

KNOWN_DIFFERENCES.extend(JSON_SCHEMA_TEST_SUITE_DIFFERENCES)
