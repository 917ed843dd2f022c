"""How a token is read: the one rule that the mask, consume, top-k, forced tokens and the
oracle share (docs/semantics.md, "Special tokens").

At a state (lexer state, top) of the recogniser, token t is read

    BY_ID          if a token lexeme that may come here matches t (`<|eot_id|>`,
                   `<[5-9]>`): one symbol, no bytes;
    else, if t is an EOS token:
      ENDS_LEXEME  if EOS may end a pending `stop=""` lexeme here,
      ENDS_OUTPUT  else if the input may end here,
      REFUSED      else;
    else BYTES     if t is a grammar token (not special, not empty): its bytes, allowed
                   iff they do not reach the dead state;
    else REFUSED   (a special token no token lexeme takes, an id outside the vocabulary).

`Reading(...).how(t)` is that rule, and `allows(t)` the answer for one token; what does
not depend on t — the token lexemes that may come (`token_lexemes`), how EOS is read
(`eos_reading`) — is computed once per state, when first asked. The mask is
{t : allows(t)}, computed in bulk (matcher.py): the trie walk for the bytes, these two
functions for the rest; the oracle (oracle.py) reads every token with a fresh Matcher's
consume, which reads by `how`.

>>> from refimpl import Grammar, Matcher, Vocabulary
>>> v = Vocabulary.from_bytes([b"<eos>", b"1", b"12", b"a", b""], eos_token_id=0)
>>> m = Matcher(Grammar.from_regex("[0-9]+"), v)
>>> r = m.reading()
>>> [NAMES[r.how(t)] for t in range(6)]
['refused', 'bytes', 'bytes', 'bytes', 'refused', 'refused']
>>> [r.allows(t) for t in range(4)], m.consume(1), NAMES[m.reading().how(0)]
([False, True, True, False], True, 'ends the output')
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Tuple

from ..recognition.lexer import DEAD

if TYPE_CHECKING:
    from ..recognition.recognizer import Recognizer
    from ..tokens.special import TokenBinding
    from ..tokens.vocab import Vocabulary

#: how a token is read (the rule above)
BY_ID, ENDS_LEXEME, ENDS_OUTPUT, BYTES, REFUSED = range(5)
NAMES = ("by id", "ends the lexeme", "ends the output", "bytes", "refused")


def token_lexemes(recognizer: Recognizer, binding: Optional[TokenBinding], state: int, top: int) -> int:
    """The token lexemes that may come in (state, top) (a bit mask): where a token one
    of them matches is read by id."""
    return recognizer.token_lexemes(state, top) if binding else 0


def eos_reading(recognizer: Recognizer, state: int, top: int) -> int:
    """How an EOS token is read in (state, top): ENDS_LEXEME, ENDS_OUTPUT or REFUSED.
    Both need the pending lexeme to end here (`flush`), so that is asked once, first:
    then EOS ends a `stop=""` lexeme if one is pending (`eos_ends_lexeme`, only asked
    where the grammar has such lexemes), else the output if the row after the flush
    accepts (`accepts_at`)."""
    flushed, new_top = recognizer.flush(state, top)
    if flushed == DEAD:
        return REFUSED
    if recognizer.lexer.eos_mask and recognizer.eos_ends_lexeme(state, top):
        return ENDS_LEXEME
    return ENDS_OUTPUT if recognizer.parser.rows[new_top - 1].accepting else REFUSED


class Reading:
    """The reading rule at one state of `recognizer` (default: its current state); the
    grammar's token lexemes bound to `vocab` are `binding` (None or empty: no token is
    read by id). Checking bytes explores above `top` and moves nothing."""

    def __init__(self, recognizer: Recognizer, binding: Optional[TokenBinding], vocab: Vocabulary,
                 state: Optional[int] = None, top: Optional[int] = None) -> None:
        self.recognizer = recognizer
        self.binding = binding if binding else None
        self.vocab = vocab
        self.state = recognizer.state if state is None else state
        self.top = recognizer.top if top is None else top
        self._by_id = -1
        self._eos = -1
        #: per first byte, asked by bytes_allowed: DEAD (a token starting with it is
        #: refused here), or the state after it where no row was pushed
        self._first: Dict[int, Tuple[int, int]] = {}

    @property
    def by_id(self) -> int:
        """The token lexemes that may come here (a bit mask)."""
        if self._by_id < 0:
            self._by_id = token_lexemes(self.recognizer, self.binding, self.state, self.top)
        return self._by_id

    @property
    def eos(self) -> int:
        """How an EOS token is read here: ENDS_LEXEME, ENDS_OUTPUT or REFUSED."""
        if self._eos < 0:
            self._eos = eos_reading(self.recognizer, self.state, self.top)
        return self._eos

    def how(self, t: int) -> int:
        """How token t is read here: BY_ID, ENDS_LEXEME, ENDS_OUTPUT, BYTES or REFUSED."""
        vocab = self.vocab
        if not 0 <= t < len(vocab):
            return REFUSED
        if self.binding is not None:
            lexemes = self.binding.lexemes_with(t)
            if lexemes and lexemes & self.by_id:
                return BY_ID
        if t in vocab.special_token_ids:
            return self.eos if t in vocab.eos_token_ids else REFUSED
        return BYTES if vocab.tokens[t] else REFUSED

    def allows(self, t: int) -> bool:
        """Is token t allowed here?"""
        how = self.how(t)
        if how == BYTES:
            return self.bytes_allowed(self.vocab.tokens[t])
        return how != REFUSED

    def bytes_allowed(self, data: bytes) -> bool:
        """Do `data` (not empty) keep the state alive? The first byte's answer is
        remembered for the next tokens; the rest is the walk's fast path (a filled table
        entry where no lazy lexeme ends is what `advance` returns with the top unchanged)
        and `advance` elsewhere."""
        first = data[0]
        rec, top = self.recognizer, self.top
        after = self._first.get(first)
        if after is None:
            state, at = rec.advance(self.state, top, first)
            if state == DEAD or at == top:
                self._first[first] = (state, at)
            if state == DEAD:
                return False
        else:
            state, at = after
            if state == DEAD:
                return False
        advance, lexer = rec.advance, rec.lexer
        table, lazy = lexer.table, lexer.lazy_accepting
        for i in range(1, len(data)):
            b = data[i]
            t = table[state << 8 | b]
            if t > DEAD and not lazy[t]:
                state = t
                continue
            state, at = advance(state, at, b)
            if state == DEAD:
                break
        return state != DEAD

    def only_bytes(self) -> bool:
        """Must the input go on with bytes here: no EOS, no token read by id?"""
        return self.eos == REFUSED and not self.by_id
