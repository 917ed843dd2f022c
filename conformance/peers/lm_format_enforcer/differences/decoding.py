"""lm-format-enforcer's known differences that come from reading token bytes as decoded
strings and regexes as interegular does (E9, E21: semantic; E22: interegular's case
folding, a bug), tried first."""
from __future__ import annotations

from ....differences import KnownDifferences, accepted_refused, all_differing
from ....divergence import Divergence, valid_utf8
from ..reading import explains, regex_reading

KNOWN_DIFFERENCES = KnownDifferences()


def _not_whole_utf8(d: Divergence) -> bool:
    return not valid_utf8(d.text()) or any(not valid_utf8(d.vocab.tokens[t]) for t in d.differing())


@KNOWN_DIFFERENCES.declare(
    "empty-token", "semantic",
    "lm-format-enforcer allows a token that decodes to the empty string in every state (it sits at "
    "the root of its prefix tree); maskref never allows empty tokens (docs/semantics.md)")
def empty_token(d: Divergence) -> bool:
    return all_differing(d, lambda data: data == b"")


@KNOWN_DIFFERENCES.declare(
    "decoded-strings", "semantic",
    "lm-format-enforcer matches decoded text, not bytes: a token that is not whole UTF-8 is offered "
    "to its parser as U+FFFD (and the bytes of a character split over tokens reach it only once "
    "complete), so such tokens are allowed where the grammar allows U+FFFD there and refused where "
    "maskref lets them start or finish a character; the differing tokens are exactly those refimpl "
    "answers differently on that reading")
def regex_decoded(d: Divergence) -> bool:
    """The text or a differing token is not whole UTF-8, and lm-format-enforcer's reading
    (regex_reading) explains every differing token."""
    return d.grammar.kind == "regex" and _not_whole_utf8(d) and explains(d, regex_reading(d))


@KNOWN_DIFFERENCES.declare(
    "ascii-classes", "semantic",
    "lm-format-enforcer's regexes are interegular's: \\d, \\w and \\s are ASCII (maskref's, Rust "
    "regex's, are Unicode)")
def regex_ascii(d: Divergence) -> bool:
    """All UTF-8; the reading explains the differing tokens only with ASCII classes."""
    return (d.grammar.kind == "regex" and not _not_whole_utf8(d) and explains(d, regex_reading(d))
            and not explains(d, regex_reading(d, ascii=False)))


@KNOWN_DIFFERENCES.declare(
    "tokenizer-alphabet", "semantic",
    "lm-format-enforcer's `.` and negated classes produce only characters of its alphabet, the "
    "characters that begin some token: a token holding, after its first character, a character "
    "that begins no token and that the regex does not name is refused")
def regex_alphabet(d: Divergence) -> bool:
    """All UTF-8; the reading explains the differing tokens only with the tokenizer
    alphabet."""
    return (d.grammar.kind == "regex" and not _not_whole_utf8(d) and explains(d, regex_reading(d))
            and not explains(d, regex_reading(d, alphabet=False)))


@KNOWN_DIFFERENCES.declare(
    "python-regex-syntax", "semantic",
    "lm-format-enforcer's regexes are read by interegular in Python's `re` syntax, where classes do "
    "not nest and there are no POSIX classes or set operations: `[[:alpha:]]` is the class of "
    "`[:alph` followed by `]`, `&&` in a class two `&`; maskref reads Rust's syntax, where "
    "`[[:alpha:]]` is the letters")
def python_syntax(d: Divergence) -> bool:
    """The reading explains the differing tokens with the regex as interegular parses it
    (its case folding put aside: Rust's), not with the regex in Rust's syntax."""
    return (d.grammar.kind == "regex" and explains(d, regex_reading(d, syntax=True, rust_folding=True))
            and not explains(d, regex_reading(d)))


@KNOWN_DIFFERENCES.declare(
    "case-folding-lower-upper", "peer-bug",
    "under `(?i)` interegular (lm-format-enforcer's regexes) matches a character, its str.lower() and "
    "its str.upper() only: `(?i)k` refuses U+212A KELVIN SIGN, `(?i)s` U+017F, `(?i)σ` ς, `(?i)ß` ẞ, "
    "which Python's `re` (whose syntax interegular reads) and Rust both match")
def case_folding(d: Divergence) -> bool:
    """The reading explains the differing tokens with interegular's case folding, not with
    Rust's."""
    return (d.grammar.kind == "regex" and explains(d, regex_reading(d, syntax=True))
            and not explains(d, regex_reading(d, syntax=True, rust_folding=True)))


@KNOWN_DIFFERENCES.declare(
    "regex-group-names", "semantic",
    "interegular, lm-format-enforcer's regex reader, ignores the names of groups: two groups of "
    "one name (`(?P<x>a)(?P<x>b)`) are read; refimpl refuses them (as Rust's and Python's regex do)")
def regex_group_names(d: Divergence) -> bool:
    return d.grammar.kind == "regex" and accepted_refused(d) is not None and "(?P<" in str(d.grammar.source)
