"""llguidance's reading of refimpl's grammar kinds and of tokens.

Its input: a grammar spec as llguidance's grammar text (`grammar_text`: a regex as a
one-rule Lark grammar, Lark as is, a JSON schema through %json with its options as
x-guidance; forcing off, so masks are the full set, as maskref's).

For the predicates of its known differences: refimpl's Matcher replayed on a
divergence's prefix (`replay`), also reading tokens as llguidance does
(`LlguidanceReading`: EOS before token lexemes, one token lexeme per token, complete
stop="" lexemes; `OneMore`, `OneLess`: token budgets counted one more or one less), and
whether it then answers the differing tokens as llguidance did (`explained_by`,
`llguidance_view`).
"""
from __future__ import annotations

import copy
import json
from typing import Any, List, Optional, Tuple

from refimpl import Grammar, MaskrefError, Matcher, Vocabulary
from refimpl.recognition.lexer import DEAD

from ...divergence import Divergence
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
        if eos and self.stopped:
            return True
        if eos and self.complete_stop and not self.stop_lexeme_pending():  # EOS ends the output, or nothing
            self.stopped = rec.is_accepting()
            return self.stopped
        if eos and (rec.eos_ends_lexeme(state, top) or rec.is_accepting()):
            self.tokens = _NoTokenLexemes()  # type: ignore[assignment]
        elif eos:  # read by id: the output ends if it may
            ok = super().consume(token_id)
            self.stopped = ok and self.is_accepting()
            return ok
        elif self.choices is not None and binding and not self.stopped:
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
    if m is not None and m.stopped:
        return d.error is None and d.refused is None and set(d.only_engine) <= eos
    if (isinstance(m, LlguidanceReading) and m.complete_stop and not m.recognizer.is_accepting()
            and not m.stop_lexeme_pending()):
        mask = m.mask()
        return (d.error is None and d.refused is None and all(t in mask and t not in eos for t in d.only_engine)
                and all(t not in mask or t in eos for t in d.only_refimpl))
    return explained_by(m, d)
