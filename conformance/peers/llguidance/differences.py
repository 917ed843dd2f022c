"""llguidance 1.9.1's known differences from maskref: each declared over the predicate
that recognises it in a divergence (docs/conformance.md lists them; the peer bugs are
reported in docs/findings.md, L1-L18), tried in the order declared (the sections follow
that order, so a topic may come twice).

A predicate that needs refimpl's state replays the divergence's prefix with refimpl's
Matcher (`Divergence.replay`), or with a Matcher that reads tokens llguidance's way
(reading.py), and asks that it answer exactly the differing tokens as llguidance did.
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

from refimpl import Grammar, Matcher
from refimpl.recognition.lexer import DEAD

from ...differences import AFTER_EOS, LENIENT_SCHEMA, KnownDifferences, accepted_refused, answers_as
from ...divergence import Divergence, compiled
from ...readings.json_schemas import NUMBER_BOUNDS, schemas
from ...readings.json_text import decoded_chars, puts
from ...vectors import GrammarSpec
from .reading import LlguidanceReading, OneLess, OneMore, explained_by, llguidance_view, replay, with_formats, with_rust_patterns

KNOWN_DIFFERENCES = KnownDifferences(AFTER_EOS, LENIENT_SCHEMA)


@KNOWN_DIFFERENCES.declare(
    "regex-trailing-backslash", "peer-bug",
    "a regex ending in a lone backslash (`ab\\`, an incomplete escape) is read without it: "
    "llguidance 1.9.1's grammar_from_regex (and regex_to_lark, through which the adapter hands "
    "llguidance a regex) turns `ab\\` into `start: /ab/` and constrains to `ab`, where its own regex "
    "syntax (Rust's regex crate) refuses the pattern; refimpl refuses it (docs/findings.md, L23)",
    cites=("llguidance's grammar format: regexes use the Rust regex crate's syntax "
           "(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md), in which a backslash must be "
           "followed by what it escapes (https://docs.rs/regex/latest/regex/#syntax; regex-syntax "
           "reports 'incomplete escape sequence')"))
def regex_trailing_backslash(d: Divergence) -> bool:
    """llguidance started a regex refimpl refuses, whose text ends in an odd number of
    backslashes (a lone one last)."""
    source = str(d.grammar.source or "")
    odd = (len(source) - len(source.rstrip("\\"))) % 2 == 1
    return d.grammar.kind == "regex" and accepted_refused(d) is not None and odd


# ----------------------------------------------------------------------------- rules and lexing


@KNOWN_DIFFERENCES.declare(
    "dead-end", "semantic",
    "where no token can continue and the input may not end, llguidance stops with the "
    "error NoExtensionBias and a mask of EOS only (so generation can end); maskref's mask "
    "is empty")
def dead_end(d: Divergence) -> bool:
    eos = set(d.vocab.eos_token_ids)
    return d.note == "NoExtensionBias" and not d.only_refimpl and set(d.only_engine) <= eos and not d.accepting


_UNPRODUCTIVE: Dict[str, bool] = {}


@KNOWN_DIFFERENCES.declare(
    "unproductive-rules", "semantic",
    "refimpl removes rules that derive nothing before parsing; llguidance keeps them, so "
    "their lexemes (and %ignore text) can enter its masks (docs/semantics.md, difference 1)")
def has_unproductive_rules(d: Divergence) -> bool:
    """Does the Lark grammar have rules that derive no terminal string (removed by
    refimpl's simplifier, kept by llguidance: docs/semantics.md, difference 1)?"""
    if d.grammar.kind != "lark":
        return False
    answer = _UNPRODUCTIVE.get(d.grammar.source)
    if answer is None:
        from refimpl.frontends.lark import lark_to_ir
        from refimpl.grammar.simplify import remove_unproductive

        ir = lark_to_ir(d.grammar.source)
        if len(_UNPRODUCTIVE) > 256:
            _UNPRODUCTIVE.clear()
        answer = _UNPRODUCTIVE[d.grammar.source] = len(remove_unproductive(ir).rules) != len(ir.rules)
    return answer


@KNOWN_DIFFERENCES.declare(
    "lazy-after-greedy", "peer-bug",
    "a lazy lexeme that matches on the very byte that ended a greedy lexeme is not ended "
    "there: start: A lz / A: /a+/ / lz[lazy]: /[0-9]+/ accepts 'a12' in llguidance 1.9.1 "
    "(docs/findings.md)",
    cites=("llguidance's grammar format, lazy lexemes ([lazy], stop=): a lazy lexeme ends at its first match "
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def lazy_read_greedily(d: Divergence) -> bool:
    """llguidance allows more (text tokens), and the differing tokens are exactly those
    refimpl answers differently once the grammar's lazy lexemes are made greedy (the lazy
    lexeme did not end where it first matched)."""
    if d.grammar.kind != "lark" or "[lazy]" not in d.grammar.source or not d.only_engine:
        return False
    if any(t in d.vocab.eos_token_ids for t in d.only_engine):
        return False
    greedy = compiled(GrammarSpec("lark", d.grammar.source.replace("[lazy]", "")))
    return explained_by(replay(greedy, d), d)


_GUARDED_EMPTY = re.compile(r'""\s*%if\b')


@KNOWN_DIFFERENCES.declare(
    "guarded-empty-alternative", "peer-bug",
    "a parametric instance that derives the empty string only through a `\"\" %if c` "
    "alternative is not nullable in llguidance 1.9.1 when it is a whole alternative of another "
    "rule: start: \"a\" | p::0x1 / p::_: \"\" %if is_ones([0:1]) | \"a\" p::set_bit(0) %if "
    "bit_clear(0) rejects the empty output (docs/findings.md)",
    cites=("llguidance's parametric grammars "
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/parametric.md)'))
def guarded_empty_lost(d: Divergence) -> bool:
    """A parametric rule with a `"" %if c` alternative, and llguidance allows less than
    refimpl (or refuses a token such as EOS its own mask allowed): its nullable instances,
    when they are a whole alternative of another rule, are not taken as empty."""
    if d.grammar.kind != "lark" or "::" not in d.grammar.source or not _GUARDED_EMPTY.search(d.grammar.source):
        return False
    return not d.only_engine and (bool(d.only_refimpl) or d.refused is not None)


# ------------------------------------------------------------------------------ EOS and stop=""


@KNOWN_DIFFERENCES.declare(
    "stop-eos-primary-only", "peer-bug",
    "with several EOS tokens, llguidance 1.9.1's mask lets only the first (its tok_eos) end a "
    "pending stop=\"\" lexeme, while its consume_token ends the lexeme with any of them "
    "(docs/findings.md, L6); maskref allows every EOS id there",
    cites=('llguidance\'s grammar format, stop="": the lexeme ends at EOS (every EOS token of the tokenizer) '
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def secondary_eos_ends_stop(d: Divergence) -> bool:
    """refimpl allows more EOS ids than llguidance, none of them the first (llguidance's
    primary EOS), where EOS may end a pending `stop=""` lexeme and the output may not end."""
    eos = d.vocab.eos_token_ids
    if d.only_engine or not d.only_refimpl or not set(d.only_refimpl) <= set(eos[1:]):
        return False
    m = d.replay()
    if m is None or m.eos_consumed or d.error is not None or d.refused is not None:
        return False
    rec = m.recognizer
    return rec.eos_ends_lexeme(rec.state, rec.top) and not rec.is_accepting()


# -------------------------------------------------------------------------------- token budgets


@KNOWN_DIFFERENCES.declare(
    "max-tokens-row-count", "semantic",
    "llguidance counts a max_tokens lexeme's tokens per Earley row, from the token in which "
    "its row was started; maskref counts the tokens that gave the lexeme bytes. They differ "
    "by one where the row starts in another token than the lexeme: after a one-byte first "
    "lexeme (start: \"1\" x, the token '1' counts) and when the lexeme's first token is the "
    "one byte that ended a lexeme that could have gone on (A: /[0-9]+/ then the token 'a': "
    "not counted); docs/findings.md, L7")
def budget_counted_off_by_one(d: Divergence) -> bool:
    """A Lark grammar with token budgets, where llguidance answers on every differing
    token as refimpl does when each budgeted lexeme's token count is one more (or one
    less) than the tokens that gave it bytes."""
    if d.grammar.kind != "lark" or "max_tokens" not in d.grammar.source:
        return False
    grammar = compiled(d.grammar)
    return any(explained_by(replay(grammar, d, shifted), d) for shifted in (OneMore, OneLess))


@KNOWN_DIFFERENCES.declare(
    "max-tokens-dead", "semantic",
    "when a token budget ends a lexeme that cannot end there, maskref's state is dead (an "
    "empty mask: only a rollback helps); llguidance goes on as if the lexeme had ended "
    "(its mask holds what may follow the lexeme, or EOS); docs/findings.md, L7")
def dead_after_budget(d: Divergence) -> bool:
    """refimpl's state is dead: a token budget ended a lexeme where it could not end."""
    if d.grammar.kind != "lark" or "max_tokens" not in d.grammar.source or d.only_refimpl:
        return False
    m = d.replay()
    return m is not None and not m.eos_consumed and m.recognizer.state == DEAD


# ---------------------------------------------------------------------------- tokens read by id


@KNOWN_DIFFERENCES.declare(
    "eos-before-token-lexeme", "semantic",
    "llguidance reads an EOS id as the end of a pending stop=\"\" lexeme, or of the output "
    "where it may end, before any token lexeme (<[0,5]>, a named EOS) may read it; maskref "
    "reads a token by id first wherever a token lexeme may match it (docs/findings.md, L8)")
def eos_read_first(d: Divergence) -> bool:
    """An EOS id of the prefix that refimpl read by id (a token lexeme) ended a stop=""
    lexeme or the output in llguidance, and the differing tokens are exactly what refimpl
    answers when it reads EOS that way."""
    if d.grammar.kind != "lark" or not any(t in d.vocab.eos_token_ids for t in d.prefix):
        return False
    m, replayed = LlguidanceReading.replay(compiled(d.grammar), d, eos_first=True)
    return replayed and llguidance_view(m, d)


MAX_CHOICES = 64


def _some_choice_explains(grammar: Grammar, d: Divergence, eos_first: bool) -> bool:
    choices: List[List[int]] = []
    for _ in range(MAX_CHOICES):
        m, replayed = LlguidanceReading.replay(grammar, d, eos_first, choices)
        if not choices:  # no token was ambiguous: nothing to explain
            return False
        if replayed and llguidance_view(m, d):
            return True
        del choices[m.reads:]  # left from another branch
        while choices and choices[-1][0] + 1 >= choices[-1][1]:  # the next choice, odometer-wise
            choices.pop()
        if not choices:
            return False
        choices[-1][0] += 1
    return False


@KNOWN_DIFFERENCES.declare(
    "token-read-by-first-lexeme", "peer-bug",
    "a token that several token lexemes may read next is read by the first of them only in "
    "llguidance 1.9.1 (flush_and_check_numeric), though its mask allows it for all: after "
    "<think> in start: <think>? <[280-283]> \"x\" it does not allow \"x\"; maskref reads it "
    "as every lexeme that matches (docs/findings.md, L9)",
    cites=("llguidance's grammar format, special tokens and token ranges <[...]> "
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def read_as_one_lexeme(d: Divergence) -> bool:
    """A token of the prefix that several token lexemes could read was read by all of them
    in refimpl; the differing tokens are exactly what refimpl answers when each such token
    is read by one of them (some choice; EOS read as llguidance reads it, or not)."""
    if d.grammar.kind != "lark" or "<" not in d.grammar.source:
        return False
    grammar = compiled(d.grammar)
    return any(_some_choice_explains(grammar, d, eos_first) for eos_first in (False, True))


_MARKER = re.compile(rb"\xff(\[[0-9]*\]?)?\Z")


@KNOWN_DIFFERENCES.declare(
    "special-marker-bytes", "peer-bug",
    "llguidance 1.9.1 writes a token read by id into its byte stream as 0xFF '[' id ']', so "
    "where a token lexeme may come next it also allows text tokens that spell the start of "
    "that form (a\\xff, \\xff[, \\xff[2); maskref never reads text as a token lexeme "
    "(docs/findings.md, L10)",
    cites=("llguidance's grammar format, special tokens: a token lexeme matches a token by id, never text "
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def marker_bytes(d: Divergence) -> bool:
    """Every token only llguidance allows is text (not special) whose bytes from its first
    0xFF on look like (a prefix of) llguidance's byte form of a token read by id,
    0xFF [id], and refimpl allows its bytes before the 0xFF and then a token lexeme."""
    if d.grammar.kind != "lark" or d.only_refimpl or not d.only_engine or d.error or d.refused is not None:
        return False
    m = replay(compiled(d.grammar), d)
    if m is None:
        return False
    rec = m.recognizer
    for t in d.only_engine:
        data = d.vocab.tokens[t]
        k = data.find(b"\xff")
        if t in d.vocab.special_token_ids or k < 0 or not _MARKER.match(data[k:]):
            return False
        if k and not m.consume_bytes(data[:k]):
            return False
        next_token_lexeme = bool(rec.token_lexemes(rec.state, rec.top))
        if k:
            m.rollback(1)
        if not next_token_lexeme:
            return False
    return True


# --------------------------------------------------------------------- %ignore and sub-grammars


def _ignore_text(es: Any, expr: int, data: bytes, whole: bool) -> bool:
    """With `whole`: does `expr` match all of `data` (not empty)? Else: does `data` begin
    with a match of `expr`, or is it the beginning of one?"""
    from refimpl.regex.derivative import derivative

    for b in data:
        expr = derivative(es, expr, b)
        if expr == es.NOTHING:
            return False
        if not whole and es.nullable(expr):
            return True
    return bool(data) and (es.nullable(expr) or not whole)


def _next_classes(m: Optional[Matcher], ir: Any) -> int:
    """How many lexeme classes (grammars) have lexemes that may come next in m's state."""
    if m is None or m.eos_consumed:
        return 0
    rec = m.recognizer
    state, top = rec.state, rec.top
    flushed, new_top = rec.flush(state, top)
    lexemes = rec.lexer.possible[state] | (rec.parser.rows[new_top - 1].allowed if flushed else 0)
    return len({x.lexeme_class for i, x in enumerate(ir.lexemes) if (lexemes >> i) & 1})


@KNOWN_DIFFERENCES.declare(
    "subgrammar-ignore", "semantic",
    "which %ignore applies around a sub-grammar (docs/semantics.md, difference 6): "
    "llguidance skips with the %ignore of the grammar on top of its stack (also before a "
    "new instance of the same grammar), maskref with that of every grammar whose lexemes may "
    "come next, never before a sub-grammar's first lexeme; the comparison of a path stops "
    "there (the engines may have skipped different text)",
    ends_path=True)
def near_ignore_text(d: Divergence) -> bool:
    """docs/semantics.md, difference 6: a grammar with sub-grammars and %ignore, where
    lexemes of two lexeme classes (two grammars) may come next (now, or before the last
    token), and the text so far ends with text some %ignore of the grammar matches, or
    every differing token begins with such text (EOS never does): what differs is which
    grammar's %ignore applies."""
    source = d.grammar.source or ""
    if d.grammar.kind != "lark" or "%ignore" not in source or ("%lark" not in source and "@" not in source):
        return False
    if d.error is not None or d.refused is not None or not d.differing():
        return False
    grammar = compiled(d.grammar)
    ir = grammar.ir
    if _next_classes(d.replay(), ir) < 2 and not (d.prefix and _next_classes(replay(grammar, d, upto=-1), ir) >= 2):
        return False
    ignores = list(ir.ignores.values())
    text = d.text()[-64:]
    if any(_ignore_text(ir.es, e, text[j:], True) for e in ignores for j in range(len(text))):
        return True
    return all(t not in d.vocab.eos_token_ids and any(_ignore_text(ir.es, e, d.vocab.tokens[t], False) for e in ignores)
               for t in d.differing())


# --------------------------------------------------------------------------------- JSON numbers


_NEGATIVE_FRACTION = re.compile(rb"(?<![0-9])-0\.[0-9]*0(?![0-9.eE])")


@KNOWN_DIFFERENCES.declare(
    "negative-fraction-trailing-zero", "peer-bug",
    "with a bound (minimum, maximum, ...) on a JSON number, llguidance 1.9.1 does not let a "
    "number of the form -0.<digits>0 end: {\"type\": \"number\", \"minimum\": -1} rejects "
    "-0.10 and -0.50 but takes -0.1, 0.10 and -2.50 (docs/findings.md, L11)",
    cites=('RFC 8259 (JSON) §6 Numbers (number = [ minus ] int [ frac ] [ exp ]; frac = decimal-point 1*DIGIT) '
           '(https://www.rfc-editor.org/rfc/rfc8259); JSON Schema 2020-12 Validation §6.2 (minimum, maximum '
           'bound the value) (https://json-schema.org/draft/2020-12/json-schema-validation)'))
def ends_negative_fraction(d: Divergence) -> bool:
    """A JSON schema with a numeric bound, where refimpl alone allows tokens (or EOS) that
    end a number written -0.<digits>0 (the number ends inside the token, or at EOS)."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl or d.error or d.refused is not None:
        return False
    if not any('"%s"' % bound in d.grammar.source for bound in NUMBER_BOUNDS):
        return False
    text = d.text()[-64:]
    for t in d.only_refimpl:
        eos = t in d.vocab.eos_token_ids
        data = text + (b"" if eos else d.vocab.tokens[t])
        ends = [m.end() for m in _NEGATIVE_FRACTION.finditer(data)]
        if not any(e >= len(text) and (e < len(data) or eos) for e in ends):
            return False
    return True


#: a JSON number's integer and fraction as written (no exponent), not inside a word or string
_NUMBER_RUN = re.compile(rb'(?<![0-9A-Za-z_."\\])(-?)([0-9]+(?:\.[0-9]*)?)')


def _bound_digits(schema: Any) -> List[Tuple[str, bool, str]]:
    """Each numeric bound of a schema as (its magnitude in decimal digits, whether it bounds
    negative numbers, how: "upper" or "upper-inclusive" where it caps the magnitude,
    "lower-exclusive" where an exclusive bound floors it); a zero bound is left out.

    >>> _bound_digits({"maximum": 100.25, "exclusiveMinimum": 0.5, "minimum": -1e-2})
    [('0.01', True, 'upper-inclusive'), ('100.25', False, 'upper-inclusive'), ('0.5', False, 'lower-exclusive')]
    """
    out = []
    for node in schemas(schema):
        for k in NUMBER_BOUNDS:
            value = node.get(k)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0:
                continue
            digits = format(Decimal(repr(abs(value))), "f")
            if "." in digits:
                digits = digits.rstrip("0").rstrip(".")
            negative = value < 0
            caps = (k in ("maximum", "exclusiveMaximum")) != negative
            if caps:
                out.append((digits, negative, "upper-inclusive" if k in ("maximum", "minimum") else "upper"))
            elif k.startswith("exclusive"):
                out.append((digits, negative, "lower-exclusive"))
    return out


def _refused_at_bound(number: str, bound: str, how: str, ended: bool) -> bool:
    """Does llguidance 1.9.1 refuse the magnitude `number` (its digits so far; `ended`: the
    number ends there) under the bound's digits, though its value is in range: a proper
    prefix of the bound with a fraction begun ends (1.2 under a maximum of 1.25), the
    bound itself goes on with zeros (1.250), or, above an exclusive lower bound, a number
    that begins with its digits and goes on in the fraction ends in a zero (0.510 above
    0.5, 12.10 above 12)."""
    zeros = number[len(bound):]
    if how.startswith("upper") and ended and "." in number and bound.startswith(number) and number != bound:
        return True
    if how == "upper-inclusive" and "." in bound and number.startswith(bound) and zeros and not zeros.strip("0"):
        return True
    if how != "lower-exclusive" or not ended or not number.startswith(bound) or not number.endswith("0"):
        return False
    fraction = zeros if "." in bound else zeros[1:]
    return (zeros.startswith(".") or "." in bound) and fraction.isdigit() and bool(fraction.strip("0"))


@KNOWN_DIFFERENCES.declare(
    "bound-prefix-or-trailing-zero", "peer-bug",
    "with a bound that has a fraction (maximum, exclusiveMaximum, a negative minimum), llguidance 1.9.1 "
    "does not let a number end on a proper prefix of the bound's digits, nor write the bound with "
    "trailing zeros: under \"maximum\": 100.25 it refuses 100.2 and 100.250; above an exclusive lower "
    "bound it refuses a number that begins with the bound's digits and ends in a zero in its fraction "
    "(0.510 above 0.5, 12.10 above 12); the values are in range (docs/findings.md, L22)",
    cites=('JSON Schema 2020-12 Validation §6.2 (maximum, exclusiveMaximum, minimum, exclusiveMinimum bound '
           'the numeric value) (https://json-schema.org/draft/2020-12/json-schema-validation); RFC 8259 (JSON) '
           '§6 Numbers (frac = decimal-point 1*DIGIT: 100.2 and 100.250 are numbers, of values 100.2 and '
           '100.25) (https://www.rfc-editor.org/rfc/rfc8259#section-6)'))
def bound_prefix_or_trailing_zero(d: Divergence) -> bool:
    """A JSON schema with a non-zero numeric bound, where refimpl alone allows the differing
    tokens (or EOS), and each ends or writes a number llguidance refuses at a bound of the
    schema (`_refused_at_bound`): EOS or a token that ends the number on it, or a token
    that leaves the number as the bound followed by zeros."""
    if d.grammar.kind != "json_schema" or d.only_engine or not d.only_refimpl or d.error or d.refused is not None:
        return False
    bounds = _bound_digits(d.grammar.schema)
    if not bounds:
        return False
    text = d.text()[-64:]
    for t in d.only_refimpl:
        eos = t in d.vocab.eos_token_ids
        data = text + (b"" if eos else d.vocab.tokens[t])
        refused = False
        for m in _NUMBER_RUN.finditer(data):
            if m.end() < len(text):
                continue  # a number the text had ended
            ended = eos or m.end() < len(data)
            number = m.group(2).decode()
            refused = refused or any(negative == bool(m.group(1)) and _refused_at_bound(number, bound, how, ended)
                                     for bound, negative, how in bounds)
        if not refused:
            return False
    return True


# ------------------------------------------------------------- EOS and stop="", %ignore, panics


@KNOWN_DIFFERENCES.declare(
    "stop-eos-after-complete-lexeme", "semantic",
    "llguidance ends a lexeme as soon as no byte can extend it, so EOS can no longer end a "
    "stop=\"\" lexeme that is complete (start: o \"a\" / o[stop=\"\"]: \"a\" allows no EOS "
    "after 'a'); maskref's lexeme is pending until the next byte or EOS (docs/findings.md, L6)")
def eos_after_complete_stop_lexeme(d: Divergence) -> bool:
    """A stop=\"\" lexeme in the grammar; the differing tokens are exactly what refimpl
    answers when EOS ends only a stop=\"\" lexeme that a byte could still extend (and EOS
    is read as llguidance reads it)."""
    if d.grammar.kind != "lark" or 'stop=""' not in d.grammar.source:
        return False
    m, replayed = LlguidanceReading.replay(compiled(d.grammar), d, eos_first=True, complete_stop=True)
    return replayed and llguidance_view(m, d)


@KNOWN_DIFFERENCES.declare(
    "empty-first-lexeme", "peer-bug",
    "at the start of the output, llguidance 1.9.1 lets a first lexeme whose regex matches "
    "the empty string be empty when the first byte is %ignore text (start: O \"a\" / O: "
    "/[a-z]*/ / %ignore \",\" accepts ',a'), where %ignore may not come first and lexemes "
    "are never empty (docs/findings.md, L12)",
    cites=("llguidance's grammar format, %ignore (allowed between lexemes, not before the first; lexemes are "
           'non-empty) (https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def empty_first_lexeme(d: Divergence) -> bool:
    """At the start of the output, where a lexeme with a nullable regex may come first,
    llguidance alone allows tokens that begin with %ignore text (not special)."""
    if d.grammar.kind != "lark" or d.prefix or d.only_refimpl or not d.only_engine:
        return False
    m = d.replay()
    if m is None or d.error is not None or d.refused is not None:
        return False
    ir, rec = compiled(d.grammar).ir, m.recognizer
    possible = rec.lexer.possible[rec.state]
    if not any((possible >> i) & 1 and x.tokens is None and ir.es.nullable(x.expr) for i, x in enumerate(ir.lexemes)):
        return False
    ignores = list(ir.ignores.values())
    return all(d.vocab.is_grammar_token(t) and any(_ignore_text(ir.es, e, d.vocab.tokens[t], False) for e in ignores)
               for t in d.only_engine)


@KNOWN_DIFFERENCES.declare(
    "subgrammar-skip-panic", "peer-bug",
    "llguidance 1.9.1 panics ('grammar stack empty for non-root grammar') computing the mask "
    "after the enclosing grammar's %ignore where a sub-grammar's first lexeme may come next: "
    "start: \"a\" \"c\"? sub / sub: %lark { start: \"b\" } / %ignore \" \" after 'a ' "
    "(docs/findings.md, L13)",
    cites=("llguidance's grammar format, sub-grammars (%lark { ... }) and %ignore "
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def subgrammar_skip_panic(d: Divergence) -> bool:
    return bool(d.error) and "panic: grammar stack empty for non-root grammar" in (d.error or "")


@KNOWN_DIFFERENCES.declare(
    "eos-after-eos-token-panic", "peer-bug",
    "llguidance 1.9.1 panics (lexer_stack=...) consuming EOS at the end of an output in "
    "which a token lexeme has read an EOS id: start: T1 <|end_of_text|> T1 / T1: /[a-c]+/ "
    "after 'a', <|end_of_text|>, 'a' (docs/findings.md, L14)",
    cites=("llguidance's grammar format, special tokens (an EOS id read by a token lexeme is a token) "
           '(https://github.com/guidance-ai/llguidance/blob/main/docs/syntax.md)'))
def eos_panic(d: Divergence) -> bool:
    """llguidance panicked ('lexer_stack=...') refusing an EOS id that refimpl takes, after
    an EOS id of the prefix was read by a token lexeme."""
    eos = d.vocab.eos_token_ids
    if d.refused not in eos or not (d.note or "").startswith("panic: lexer_stack"):
        return False
    return any(t in eos for t in d.prefix)


# --------------------------------------------------------------------------------- JSON schemas


@KNOWN_DIFFERENCES.declare(
    "hostname-hyphens", "peer-bug",
    "llguidance's `hostname` format takes any LDH label, so `ab--x` and invalid Punycode (`xn--X`) "
    "pass; a label with `--` in its third and fourth characters must be a valid A-label "
    "(RFC 5891), and maskref leaves such labels out (docs/jsonschema.md)",
    cites=('JSON Schema 2020-12 Validation §7.3.3 hostname (RFC 1123, and RFC 5890/5891 for A-labels) '
           '(https://json-schema.org/draft/2020-12/json-schema-validation)'))
def hostname_hyphens(d: Divergence) -> bool:
    """In a schema with a `hostname` format, only llguidance allows the differing tokens,
    and each puts `--` at the third and fourth characters of a label of the string it
    writes (a label RFC 5891 reserves for valid Punycode A-labels, which maskref leaves out:
    docs/jsonschema.md)."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.error or d.refused is not None:
        return False
    if '"hostname"' not in (d.grammar.source or ""):
        return False
    text = d.text()
    for t in d.only_engine:
        data = text + d.vocab.tokens[t]
        string = data[data.rfind(b'"', 0, len(text)) + 1:] if b'"' in text else b""
        labels = string.split(b'"')[0].split(b".")
        if not any(label[2:4] == b"--" for label in labels):
            return False
    return True


#: a negated class of a pattern that leaves out `\` or `"` (in the pattern's own text)
_NEGATED_QUOTE_OR_BACKSLASH = re.compile(r'\[\^(?:[^\]\\]|\\.)*?(?:\\\\|")')


def _patterns(schema: Any) -> Iterator[str]:
    """The regexes of `pattern` and the keys of `patternProperties` anywhere in a schema."""
    for node in schemas(schema):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        if isinstance(node.get("patternProperties"), dict):
            yield from node["patternProperties"]


def _escaped_quote_or_backslash(b: int, in_string: bool, escaped: bool) -> bool:
    r"""The second byte of an escape `\` or `"` in a string (for `puts`)."""
    return in_string and escaped and b in (0x5C, 0x22)


@KNOWN_DIFFERENCES.declare(
    "escape-in-negated-class", "peer-bug",
    "a pattern's negated class that leaves out the backslash or the quote still lets that "
    "character through, escaped, in llguidance 1.9.1: with the pattern ^[^\\\\]*$ it accepts the "
    "JSON text \"\\\\\" (the one-character string \\), with ^[^\"]*$ the text \"\\\"\" (docs/findings.md, L17)",
    cites=('JSON Schema 2020-12 Validation §6.3.3 pattern: an ECMA-262 regex over the string\'s value, "not '
           'implicitly anchored" (https://json-schema.org/draft/2020-12/json-schema-validation); RFC 8259 '
           '(JSON) §7 Strings: control characters U+0000-U+001F must be escaped; any character may be escaped '
           '(https://www.rfc-editor.org/rfc/rfc8259)'))
def escape_in_negated_class(d: Divergence) -> bool:
    r"""Only llguidance allows the differing tokens, each writes an escaped backslash or
    quote in a string, and a pattern of the schema has a negated class that leaves out `\`
    or `"`."""
    if d.grammar.kind != "json_schema" or d.only_refimpl or not d.only_engine or d.error or d.refused is not None:
        return False
    if not any(_NEGATED_QUOTE_OR_BACKSLASH.search(p) for p in _patterns(d.grammar.schema)):
        return False
    text = d.text()
    return all(puts(text, d.vocab.tokens[t], _escaped_quote_or_backslash) for t in d.only_engine)


#: characters ECMA-262 and Rust's regex read differently: `.` (ECMA leaves out \r, U+2028
#: and U+2029 as well as \n) and `\s` (ECMA's has U+FEFF, Rust's U+0085)
_ECMA_VS_RUST = frozenset("\r\u2028\u2029\u0085\ufeff")


@KNOWN_DIFFERENCES.declare(
    "ecma-dot-and-space", "semantic",
    "JSON schema patterns are ECMA-262 regexes: `.` leaves out \\r, U+2028 and U+2029 as "
    "well as \\n, and `\\s` has U+FEFF but not U+0085; llguidance reads them with Rust's "
    "meanings (docs/jsonschema.md, differences from llguidance, 5)")
def ecma_classes(d: Divergence) -> bool:
    r"""A pattern of the schema has `.` or `\s`/`\S`, and each differing token (either
    side) writes, in a string, a character the two dialects read differently; or each ends
    inside a character, and llguidance answers them as refimpl does on the schema whose
    patterns have Rust's `.` and `\s` (`with_rust_patterns`)."""
    if d.grammar.kind != "json_schema" or d.error or d.refused is not None or not (d.only_engine or d.only_refimpl):
        return False
    if not any(re.search(r"(?<!\\)(?:\\\\)*(?:\.|\\[sS])", p) for p in _patterns(d.grammar.schema)):
        return False
    text = d.text()
    for t in d.only_engine + d.only_refimpl:
        added = [ch for ch, end in decoded_chars(text + d.vocab.tokens[t]) if end > len(text)]
        if not any(ch in _ECMA_VS_RUST for ch in added):
            break
    else:
        return True
    # a token that ends inside a character (the first bytes of U+FEFF, say): llguidance
    # answers as refimpl does with the patterns read with Rust's `.` and `\s`
    return all(_ends_inside_character(text + d.vocab.tokens[t]) for t in d.differing()) and \
        _answers_as_read(d, with_rust_patterns(d.grammar.schema))


_CONTINUATION = bytes(range(0x80, 0xC0))


def _ends_inside_character(data: bytes) -> bool:
    """Does UTF-8 data end with the first bytes of a character (and nothing else wrong)?"""
    try:
        data[-8:].lstrip(_CONTINUATION).decode("utf-8")
        return False
    except UnicodeDecodeError as e:
        return e.reason == "unexpected end of data"


def _answers_as_read(d: Divergence, schema: Any) -> bool:
    """Does llguidance answer on every differing token as refimpl does on `schema` (the
    vector's schema as llguidance reads it; None: no such reading)?"""
    if schema is None:
        return False
    return answers_as(d, compiled(GrammarSpec("json_schema", schema=schema, options=d.grammar.options)))


def _as_its_formats(d: Divergence, names: Set[str]) -> bool:
    """A JSON schema with some of the formats `names`, on which llguidance answers every
    differing token as refimpl does when they are llguidance's regexes (reading.FORMATS)."""
    if d.grammar.kind != "json_schema":
        return False
    used = names & {node["format"] for node in schemas(d.grammar.schema) if isinstance(node.get("format"), str)}
    return bool(used) and _answers_as_read(d, with_formats(d.grammar.schema, used))


@KNOWN_DIFFERENCES.declare(
    "email-dot-string-only", "peer-bug",
    "llguidance 1.9.1's `email` format takes dot-string local parts and IPv4 address literals "
    "only: a quoted local part (\"a b\"@example.com, or any string that begins with an escaped "
    "quote) and an IPv6 literal (a@[IPv6:::1]) are refused, though RFC 5321's Mailbox has "
    "both; maskref allows them (docs/findings.md, L19)",
    cites=('JSON Schema 2020-12 Validation §7.3.2 email: the "Mailbox" ABNF rule of RFC 5321 §4.1.2 '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 5321 §4.1.2 (Local-part = '
           'Dot-string / Quoted-string) and §4.1.3 (IPv6-address-literal) '
           '(https://www.rfc-editor.org/rfc/rfc5321#section-4.1.2)'))
def email_dot_string_only(d: Divergence) -> bool:
    """A schema with an `email` format, on which llguidance answers every differing token
    as refimpl does when `email` is llguidance's regex (FORMATS)."""
    return _as_its_formats(d, {"email"})


@KNOWN_DIFFERENCES.declare(
    "leap-day-and-second", "peer-bug",
    "llguidance 1.9.1's `date`, `time` and `date-time` formats take February 29 in every year "
    "(2021-02-29) and a leap second at any minute (08:38:60Z); RFC 3339 has February 29 in "
    "leap years only and a leap second at 23:59 UTC only, as maskref (docs/jsonschema.md, "
    "differences from llguidance, 1; docs/findings.md, L20)",
    cites=('JSON Schema 2020-12 Validation §7.3.1 date-time, date, time: RFC 3339 §5.6 '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 3339 §5.7 (date-mday by month '
           'and year, a leap second at the end of a UTC day) and Appendix C (leap years) '
           '(https://www.rfc-editor.org/rfc/rfc3339#section-5.7)'))
def leap_day_and_second(d: Divergence) -> bool:
    """A schema with a `date`, `time` or `date-time` format, on which llguidance answers
    every differing token as refimpl does when those formats are llguidance's regexes."""
    return _as_its_formats(d, {"date", "time", "date-time"})


@KNOWN_DIFFERENCES.declare(
    "hostname-any-length", "peer-bug",
    "llguidance 1.9.1's `hostname` format has no bound on the name's length: a name of more "
    "than 253 characters passes; RFC 1123 (with RFC 1034's 255 octets) bounds it, and maskref "
    "does (docs/jsonschema.md, differences from llguidance, 2; docs/findings.md, L21)",
    cites=('JSON Schema 2020-12 Validation §7.3.3 hostname: RFC 1123 §2.1 '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 1123 §2.1 (host names up to '
           '255 characters, as RFC 1034 §3.1 counts them) (https://www.rfc-editor.org/rfc/rfc1123#section-2.1)'))
def hostname_any_length(d: Divergence) -> bool:
    """A schema with a `hostname` format, on which llguidance answers every differing token
    as refimpl does when `hostname` is llguidance's regex (after `hostname-hyphens`, so
    what remains is the length)."""
    return _as_its_formats(d, {"hostname"})


@KNOWN_DIFFERENCES.declare(
    "ipv6-without-ipv4-tail", "peer-bug",
    "llguidance 1.9.1's `ipv6` format has none of the forms that end in an IPv4 address "
    "(::ffff:1.2.3.4, ::1.2.3.4), which RFC 4291 §2.2 allows, nor has a `uri`'s IPv6 literal "
    "(http://[::ffff:1.2.3.4]/, RFC 3986's IPv6address); maskref allows them (docs/findings.md, L21)",
    cites=('JSON Schema 2020-12 Validation §7.3.4 ipv6: RFC 4291 §2.2, §7.3.5 uri: RFC 3986 '
           '(https://json-schema.org/draft/2020-12/json-schema-validation); RFC 4291 §2.2 form 3 '
           '(x:x:x:x:x:x:d.d.d.d) (https://www.rfc-editor.org/rfc/rfc4291#section-2.2); RFC 3986 §3.2.2 '
           'IPv6address ( 6( h16 ":" ) ls32, ls32 = ( h16 ":" h16 ) / IPv4address ) '
           '(https://www.rfc-editor.org/rfc/rfc3986#section-3.2.2)'))
def ipv6_without_ipv4_tail(d: Divergence) -> bool:
    """A schema with an `ipv6` or `uri` format, on which llguidance answers every differing
    token as refimpl does when those are llguidance's regexes (a `uri` is maskref's with
    llguidance's `ipv6` as its IP literal)."""
    return _as_its_formats(d, {"ipv6", "uri"})
