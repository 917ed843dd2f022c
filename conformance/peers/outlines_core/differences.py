"""outlines-core 0.2.14's known differences from maskref (docs/conformance.md lists them;
docs/findings.md, findings 2 and 3)."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar

from ...differences import LENIENT_SCHEMA, KnownDifferences, all_differing, answers_as
from ...divergence import Divergence, compiled
from ...isolation import timed_out
from ...vectors import GrammarSpec
from .reading import effective_regex

KNOWN_DIFFERENCES = KnownDifferences(LENIENT_SCHEMA)


@KNOWN_DIFFERENCES.declare(
    "empty-token", "semantic",
    "outlines-core allows an empty token in every state (it consumes nothing); maskref "
    "never allows empty tokens (docs/semantics.md)")
def empty_token(d: Divergence) -> bool:
    return all_differing(d, lambda data: data == b"")


@KNOWN_DIFFERENCES.declare(
    "json-schema-regex", "semantic",
    "outlines-core compiles a JSON schema to its own regex (build_regex_from_schema): at most "
    "one space between tokens ([ ]?), minimum/maximum ignored, objects closed when "
    "additionalProperties is absent, no \\uXXXX escapes, U+007F-U+009F excluded from "
    "strings, an exponent needs a sign; the differing tokens are exactly those refimpl "
    "answers differently on that regex")
def json_schema_regex(d: Divergence, whitespace: Optional[str] = None) -> bool:
    """The peer answers for every differing token as refimpl does on outlines-core's own
    regex for the schema (with `whitespace` between tokens: reading.regex_of)."""
    if d.grammar.kind != "json_schema":
        return False
    regex = effective_regex(d.grammar, whitespace)
    return regex is not None and answers_as(d, compiled(GrammarSpec("regex", regex)))


def _allowed_by(grammar: Grammar, prefix: bytes, token: bytes) -> bool:
    from refimpl.recognition.recognizer import Recognizer

    return bool(token) and Recognizer(grammar.compiled, grammar.limits).consume_bytes(prefix + token)


@KNOWN_DIFFERENCES.declare(
    "pruned-after-match", "peer-bug",
    "outlines-core 0.2.14 leaves out tokens that pass through a match of the regex before "
    "their last byte: (a*|b) does not allow 'b' (leftmost-first priorities of its "
    "regex-automata DFA) and [0-9]+(\\.[0-9]+)? after '1' does not allow '.' (a delayed "
    "match state is kept only if it accepts); docs/findings.md",
    cites=("the regex's language (a mask must allow every token that extends the text to a prefix of a match); "
           "regex-automata's default MatchKind::LeftmostFirst drops later alternatives "
           '(https://docs.rs/regex-automata/latest/regex_automata/enum.MatchKind.html); RFC 8259 (JSON) §6 '
           'Numbers (number = [ minus ] int [ frac ] [ exp ]; frac = decimal-point 1*DIGIT) '
           '(https://www.rfc-editor.org/rfc/rfc8259)'))
def pruned_after_match(d: Divergence, whitespace: Optional[str] = None) -> bool:
    """Every token only refimpl allows passes through a match of the regex before its last
    byte: the text so far plus a proper prefix of the token (the text itself included)
    matches the whole regex. outlines-core 0.2.14 drops such tokens in two ways: its
    regex-automata DFA follows leftmost-first priorities, so once an earlier alternative
    has matched, later ones are cut ((a*|b) does not allow 'b'); and a token whose DFA
    state is a (one-byte-delayed) match state is kept only if that state accepts
    ([0-9]+(\\.[0-9]+)? after '1' does not allow '.')."""
    if d.only_engine or not d.only_refimpl or d.error or d.refused is not None:
        return False
    regex = effective_regex(d.grammar, whitespace)
    if regex is None:
        return False
    from refimpl.recognition.recognizer import Recognizer

    g = compiled(GrammarSpec("regex", regex))
    prefix = d.text()
    for t in d.only_refimpl:
        data = d.vocab.tokens[t]
        if t in d.vocab.eos_token_ids or not _allowed_by(g, prefix, data):
            return False
        r = Recognizer(g.compiled, g.limits)
        r.consume_bytes(prefix)
        matched = r.is_accepting()
        for b in data[:-1]:
            if matched:
                break
            r.consume_bytes(bytes([b]))
            matched = r.is_accepting()
        if not matched:
            return False
    return True


#: the length of outlines-core's regex for a schema from which its Index build outlasts a
#: vector's 30 s (measured on the byte vocabulary, 2026-11-29; docs/findings.md, O4):
#: {"type": ["array", "object"]}'s 13,743 characters took 61 s, {"type": "object"}'s 6,900 7 s
LONG_SCHEMA_REGEX = 10000


@KNOWN_DIFFERENCES.declare(
    "no-answer-on-generic-values", "peer-bug",
    "outlines-core 0.2.14 does not answer in 30 s on a JSON schema whose regex nests its generic "
    "JSON value (an untyped value, an object or array of `type` alone) more than once: its Index "
    "build takes 15-77 s on the 257-token byte vocabulary for {\"type\": [\"array\", \"object\"]} "
    "(a 13,743-character regex: 61 s, where {\"type\": \"array\"} alone takes 4 s and "
    "{\"type\": \"object\"} 7 s) or prefixItems of arrays of objects; refimpl answers at once "
    "(docs/findings.md, O4)",
    ends_path=True,
    cites=("outlines-core's Index (https://github.com/dottxt-ai/outlines-core): a schema its "
           "build_regex_from_schema accepts must be indexed and answered, not take minutes"))
def no_answer_on_generic_values(d: Divergence, whitespace: Optional[str] = None) -> bool:
    """outlines-core did not answer in time on a JSON schema whose regex (reading.regex_of,
    with `whitespace`) is LONG_SCHEMA_REGEX characters or more: its Index build is what
    outlasts the vector (the regex itself is written at once)."""
    if not timed_out(d) or d.grammar.kind != "json_schema":
        return False
    regex = effective_regex(d.grammar, whitespace)
    return regex is not None and len(regex) >= LONG_SCHEMA_REGEX
