"""llguidance's reading of refimpl's grammar kinds and of tokens.

Its input: a grammar spec as llguidance's grammar text (`grammar_text`: a regex as a
one-rule Lark grammar, Lark as is, a JSON schema through %json with its options as
x-guidance; forcing off, so masks are the full set, as maskref's).

For the predicates of its known differences: refimpl's Matcher replayed on a
divergence's prefix (`replay`), also reading tokens as llguidance does
(`LlguidanceReading`: EOS before token lexemes, one token lexeme per token, complete
stop="" lexemes; `OneMore`, `OneLess`: token budgets counted one more or one less), and
whether it then answers the differing tokens as llguidance did (`explained_by`,
`llguidance_view`); and a JSON schema as llguidance reads its formats (`with_formats`:
`FORMATS`, its regexes where they are not maskref's) and its patterns (`with_rust_patterns`:
`.` and `\\s` with Rust's meanings).
"""
from __future__ import annotations

import copy
import json
from typing import Any, Collection, Dict, List, Optional, Tuple

from refimpl import Grammar, MaskrefError, Matcher, Vocabulary
from refimpl.frontends.jsonschema.formats import uri_pattern
from refimpl.recognition.lexer import DEAD

from ...divergence import Divergence
from ...readings.json_schemas import rewrite_schemas
from ...readings.regex_text import write_out_classes
from ...vectors import GrammarSpec, NotSupported

HEAD = '%llguidance {"no_forcing": true}\n'


def grammar_text(spec: GrammarSpec) -> str:
    """llguidance's grammar for a spec: a regex as a one-rule Lark grammar, Lark as is,
    a JSON schema through %json (its options as x-guidance); forcing off."""
    import llguidance

    if spec.kind == "regex":
        return HEAD + "start: /%s/\n" % llguidance.regex_to_lark(spec.source)
    if spec.kind == "lark":
        return HEAD + spec.source
    schema = spec.schema
    if spec.options:
        if not isinstance(schema, dict):
            raise NotSupported("options on a non-object schema")
        schema = copy.deepcopy(schema)
        schema["x-guidance"] = dict(spec.options, **schema.get("x-guidance", {}))
    return HEAD + "start: %%json %s\n" % json.dumps(schema, ensure_ascii=False)


def replay(grammar: Grammar, d: Divergence, matcher: type = Matcher, upto: Optional[int] = None) -> Optional[Matcher]:
    """A Matcher (of class `matcher`) for `grammar` after the divergence's prefix (its first
    `upto` tokens), or None if it refuses them."""
    prefix = d.prefix[:upto] if upto is not None else d.prefix
    try:
        m = matcher(grammar, d.vocab, slices=())
        return m if m.consume_tokens(prefix) else None
    except MaskrefError:
        return None


def explained_by(m: Optional[Matcher], d: Divergence) -> bool:
    """Does the Matcher `m` allow exactly the differing tokens the backend allows (every
    token only the backend allows, none of those only refimpl allows)?"""
    if m is None or d.error is not None or d.refused is not None:
        return False
    mask = m.mask()
    return all(t in mask for t in d.only_engine) and not any(t in mask for t in d.only_refimpl)


class ShiftedBudgets(Matcher):
    """refimpl's Matcher with token budgets checked against the pending lexeme's token
    count plus `shift` (llguidance counts the tokens of the lexeme's Earley row)."""

    shift = 0

    def _spend_budget(self, n_tokens: int) -> None:
        super()._spend_budget(n_tokens + self.shift)
        rec = self.recognizer
        if rec.state != DEAD and not rec.lexer.is_fresh(rec.state):
            self.lexeme_tokens = n_tokens  # the lexeme's own count goes on unshifted


class OneMore(ShiftedBudgets):
    shift = 1


class OneLess(ShiftedBudgets):
    shift = -1


class _NoTokenLexemes:
    """A token binding that matches nothing (the Matcher then reads EOS as EOS)."""

    def __bool__(self) -> bool:
        return False


class _OneTokenLexeme:
    """A token binding that reads its token as the one token lexeme `lexeme` (a bit)."""

    def __init__(self, lexeme: int) -> None:
        self.lexeme = lexeme

    def __bool__(self) -> bool:
        return True

    def lexemes_with(self, token_id: int) -> int:
        return self.lexeme


class LlguidanceReading(Matcher):
    """refimpl's Matcher reading tokens as llguidance 1.9.1 does (for the predicates):

    - eos_first: an EOS id ends a pending stop="" lexeme, or else the output where it may
      end, before any token lexeme may read it; read by a token lexeme, it ends the output
      if the output may end after it (llguidance's consume_token and check_stop); once
      stopped, EOS is taken again;
    - choices (a list, filled as the replay goes): a token that several token lexemes may
      read is read as one of them, choices[i][0] of choices[i][1] at the i-th such read
      (llguidance takes the first that matches, flush_and_check_numeric), not as all.
    """

    eos_first = False
    complete_stop = False

    def __init__(self, grammar: Grammar, vocab: Vocabulary, **options: Any) -> None:
        self.choices: Optional[List[List[int]]] = None
        self.reads = 0
        super().__init__(grammar, vocab, **options)

    @classmethod
    def replay(cls, grammar: Grammar, d: Divergence, eos_first: bool, choices: Optional[List[List[int]]] = None,
               complete_stop: bool = False) -> "Tuple[LlguidanceReading, bool]":
        """The Matcher after the divergence's prefix, and whether it took every token."""
        m = cls(grammar, d.vocab, slices=())
        m.eos_first, m.choices, m.complete_stop = eos_first, choices, complete_stop
        return m, m.consume_tokens(d.prefix)

    def stop_lexeme_pending(self) -> bool:
        """May EOS end the pending stop="" lexeme (with complete_stop: only if a byte could
        still extend it; llguidance has ended it otherwise)?"""
        rec = self.recognizer
        if not rec.eos_ends_lexeme(rec.state, rec.top):
            return False
        return not self.complete_stop or any(rec.lexer.step(rec.state, b) != DEAD for b in range(256))

    def consume(self, token_id: int) -> bool:
        binding, rec = self.tokens, self.recognizer
        state, top = rec.state, rec.top
        eos = self.eos_first and token_id in self.vocab.eos_token_ids
        if eos and self.eos_consumed:
            return True
        if eos and self.complete_stop and not self.stop_lexeme_pending():  # EOS ends the output, or nothing
            self.eos_consumed = rec.is_accepting()
            return self.eos_consumed
        if eos and (rec.eos_ends_lexeme(state, top) or rec.is_accepting()):
            self.tokens = _NoTokenLexemes()  # type: ignore[assignment]
        elif eos:  # read by id: the output ends if it may
            ok = super().consume(token_id)
            self.eos_consumed = ok and self.is_accepting()
            return ok
        elif self.choices is not None and binding and not self.eos_consumed:
            allowed = binding.lexemes_with(token_id) & rec.token_lexemes(state, top)
            bits = [1 << i for i in range(allowed.bit_length()) if allowed >> i & 1]
            if len(bits) > 1:
                if self.reads == len(self.choices):
                    self.choices.append([0, len(bits)])
                self.tokens = _OneTokenLexeme(bits[self.choices[self.reads][0]])  # type: ignore[assignment]
                self.reads += 1
        try:
            return super().consume(token_id)
        finally:
            self.tokens = binding


def llguidance_view(m: Optional[Matcher], d: Divergence) -> bool:
    """explained_by, where a stopped Matcher's mask is llguidance's after EOS (EOS only),
    and with complete_stop, EOS ends no complete stop=\"\" lexeme."""
    eos = set(d.vocab.eos_token_ids)
    if m is not None and m.eos_consumed:
        return d.error is None and d.refused is None and set(d.only_engine) <= eos
    if (isinstance(m, LlguidanceReading) and m.complete_stop and not m.recognizer.is_accepting()
            and not m.stop_lexeme_pending()):
        mask = m.mask()
        return (d.error is None and d.refused is None and all(t in mask and t not in eos for t in d.only_engine)
                and all(t not in mask or t in eos for t in d.only_refimpl))
    return explained_by(m, d)


# ------------------------------------------------------------------ formats and patterns

_ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_DATE = ("[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
         "|02-(?:0[1-9]|1[0-9]|2[0-9]))")
_TIME = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[zZ]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"

_H16 = "[0-9A-Fa-f]{1,4}"
_H16S = "(?:%s:%s)" % (_H16, _H16)  # where RFC 4291 also allows an IPv4 address
_IPV6 = "|".join([
    "(?:%s:){7}%s" % (_H16, _H16),
    "::(?:%s:){0,5}%s" % (_H16, _H16S),
    "(?:%s)?::(?:%s:){0,4}%s" % (_H16, _H16, _H16S),
] + ["(?:(?:%s:){0,%d}%s)?::(?:%s:){0,%d}%s" % (_H16, n, _H16, _H16, 3 - n, _H16S) for n in (1, 2)] + [
    "(?:(?:%s:){0,3}%s)?::%s:%s" % (_H16, _H16, _H16, _H16S),
    "(?:(?:%s:){0,4}%s)?::%s" % (_H16, _H16, _H16S),
    "(?:(?:%s:){0,5}%s)?::%s" % (_H16, _H16, _H16),
    "(?:(?:%s:){0,6}%s)?::" % (_H16, _H16),
])

#: llguidance 1.9.1's format regexes (parser/src/json/formats.rs) where they are not maskref's,
#: as ECMA-262 patterns of the decoded string: `email` with dot-string local parts and IPv4
#: literals only (no quoted local part, no IPv6 literal); `date` with February 29 in every
#: year; `time` with a leap second at any minute; `hostname` of any length, its labels any
#: LDH string; `ipv6` without the forms that end in an IPv4 address, and so `uri`, whose IP
#: literal (`http://[::1]/`) is that `ipv6` (maskref's `uri` otherwise)
FORMATS = {
    "hostname": "{0}(?:\\.{0})*".format("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"),
    "ipv6": _IPV6,
    "email": "%s+(?:\\.%s+)*@(?:%s(?:\\.%s)*|\\[(?:%s\\.){3}%s\\])" % (_ATEXT, _ATEXT, _LABEL, _LABEL, _OCTET, _OCTET),
    "date": _DATE,
    "time": _TIME,
    "date-time": "%s[tT]%s" % (_DATE, _TIME),
    "uri": uri_pattern(ipv6=_IPV6),
}


def with_formats(schema: Any, names: Collection[str]) -> Any:
    """The schema with each `format` among `names` read as llguidance's regex (FORMATS):
    the format left out, its regex added as a pattern (through allOf where the schema
    object has a pattern already).

    >>> d = with_formats({"properties": {"d": {"format": "date", "pattern": "1"}}}, ["date"])["properties"]["d"]
    >>> sorted(d), d["allOf"] == [{"pattern": "^(?:%s)$" % FORMATS["date"]}]
    (['allOf', 'pattern'], True)
    """
    def read(node: Dict[str, Any]) -> Dict[str, Any]:
        name = node.get("format")
        if not isinstance(name, str) or name not in names:
            return node
        node = {k: v for k, v in node.items() if k != "format"}
        pattern = "^(?:%s)$" % FORMATS[name]
        if "pattern" in node:
            node["allOf"] = list(node.get("allOf", [])) + [{"pattern": pattern}]
        else:
            node["pattern"] = pattern
        return node
    return rewrite_schemas(schema, read)


#: `\\s` as Rust's regex reads it (Unicode White_Space: U+0085, no U+FEFF), a class body
RUST_SPACE = "\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"


def with_rust_patterns(schema: Any) -> Optional[Any]:
    """The schema with its patterns (`pattern`, the keys of `patternProperties`) read as
    llguidance reads them, with Rust's `.` (all but \\n) and `\\s`; None where one cannot
    be written so (`\\S` inside a class)."""
    failed: List[str] = []

    def rust(pattern: str) -> str:
        out = write_out_classes(pattern, {"s": RUST_SPACE}, dot="[^\\n]")
        if out is None:
            failed.append(pattern)
        return out or pattern

    def read(node: Dict[str, Any]) -> Dict[str, Any]:
        if isinstance(node.get("pattern"), str):
            node["pattern"] = rust(node["pattern"])
        if isinstance(node.get("patternProperties"), dict):
            node["patternProperties"] = {rust(k): v for k, v in node["patternProperties"].items()}
        return node
    out = rewrite_schemas(schema, read)
    return None if failed else out
