"""The byte-level recogniser: the lexer and the Earley parser, one byte at a time.

The state is a pair (lexer state, parser top). How a byte b moves it (`advance`),
following llguidance's lexer (docs/semantics.md):

1. t = step(s, b). If t is dead, the current lexeme ends *before* b: the greedy lexemes
   that match in s are scanned (`restart`: the parser pushes a row; an %ignore lexeme
   pushes nothing, or a copy of the row when it may match only once), and b is read
   again from the new row's lexer start state. If no lexeme matches in s (a fresh state
   matches none: lexemes are never empty), b is rejected.
2. If a lazy lexeme matches in t, it ends right there, b included, and is scanned.
3. Otherwise t is the new lexer state.

The input is accepted at its end when the pending lexeme (if any) can end and the top
row then holds the accepting item [S' → S •, 0]. The token-mask walk runs the same
`advance` on the rare bytes where the lexer table alone does not decide, and `restart`
where a lexeme ends, to learn which bytes may come next without `advance`.

A token read by id (a special token, docs/semantics.md) is one symbol, not bytes:
`advance_token` ends the pending lexeme as at the end of the input (`flush`), then the
parser scans the token lexemes that match it. No regex reads a token, and no byte is
read by a token lexeme.

>>> from refimpl.frontends.lark import parse_lark
>>> r = Recognizer(parse_lark('start: NUMBER ("," NUMBER)*\\nNUMBER: /[0-9]+/').compile())
>>> r.consume_bytes(b"12,3"), r.is_accepting()
(True, True)
>>> r.consume_bytes(b","), r.is_accepting(), r.consume_bytes(b"x")
(True, False, False)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Tuple

from .earley import Parser, Row
from ..grammar.ir import CompiledGrammar
from .lexer import DEAD, Lexer
from ..limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from ..trace import Tracer


class Recognizer:
    def __init__(self, grammar: CompiledGrammar, limits: Limits = DEFAULT_LIMITS, leo: bool = True,
                 token_boundaries: bool = False) -> None:
        self.grammar = grammar
        self.lexer = Lexer.of(grammar)  # shared by every recogniser of the grammar
        #: the lexemes after which a token must end (`stop=`), when tokens are read
        #: (the Matcher); on plain bytes there are no token ends, and stop= is suffix=
        self.hidden_mask = self.lexer.hidden_mask if token_boundaries else 0
        self.parser = Parser(grammar, limits, leo=leo)
        row0 = self.parser.rows[0]
        row0.lexer_start = self._lexer_start(row0, initial=True)
        self.state = row0.lexer_start
        self._history: List[Tuple[int, int]] = []  # (parser top, lexer state) before each step
        #: how many lexemes have ended (the Matcher's token budgets compare it around a token)
        self.lexemes_ended = 0
        #: hears of each byte consumed and lexeme scanned (trace.py); None: off
        self.tracer: Optional[Tracer] = None

    def _lexer_start(self, row: Row, initial: bool = False) -> int:
        """The lexer state at the start of a lexeme after `row` (see Lexer.row_start)."""
        return self.lexer.row_start(row.allowed, initial, self.grammar.allow_initial_skip)

    def scan(self, lexemes: int, top: int) -> Tuple[int, int]:
        """End the pending lexeme as one of `lexemes` (a bit mask) over rows[:top].

        Returns the lexer start state of the next lexeme and the new parser top, or
        (DEAD, top) when the parser cannot take any of these lexemes here.
        """
        parser = self.parser
        parser.top = top
        reused = parser.rows_reused
        if lexemes & self.lexer.skip_mask:  # %ignore: the parser does not move
            once = lexemes & self.lexer.once_skip_mask
            if not once:
                start = parser.rows[top - 1].lexer_start
            else:
                start = parser.push_copy(once, self.lexer.without(parser.rows[top - 1].lexer_start, once)).lexer_start
        else:
            row = parser.push(lexemes)
            if row is None:
                return DEAD, top
            if row.lexer_start < 0:
                row.lexer_start = self._lexer_start(row)
            start = row.lexer_start
        self.lexemes_ended += 1
        if self.tracer is not None:
            self.tracer.lexeme_scanned(lexemes, top, parser.top, parser.rows_reused != reused)
        return start, parser.top

    def advance(self, state: int, top: int, b: int) -> Tuple[int, int]:
        """The state after byte b from (state, top); (DEAD, _) if b is rejected."""
        lexer = self.lexer
        t = lexer.step(state, b)
        if t == DEAD:
            start, top = self.restart(state, top)
            if start == DEAD:
                return DEAD, top
            t = lexer.step(start, b)
            if t == DEAD:
                return DEAD, top
        ended = lexer.lazy_accepting[t]
        if ended:
            start, top = self.scan(ended, top)
            if ended & self.hidden_mask and start != DEAD:
                start = lexer.boundary(start)  # a hidden stop: the token ends here
            return start, top
        return t, top

    def restart(self, state: int, top: int) -> Tuple[int, int]:
        """End the lexeme pending in `state` now (step 1's scan of the greedy lexemes that
        match there): the start state of the next lexeme and the new top, or (DEAD, top)
        if none matches or the parser takes none of them."""
        ended = self.lexer.greedy_accepting[state]
        if not ended:
            return DEAD, top
        return self.scan(ended, top)

    def flush(self, state: int, top: int) -> Tuple[int, int]:
        """End the pending lexeme, if any, as at the end of the input: the fresh state and
        top after it, or (DEAD, top) if it cannot end here."""
        if self.lexer.is_fresh(state):
            return state, top
        return self.restart(state, top)

    def advance_token(self, state: int, top: int, lexemes: int) -> Tuple[int, int]:
        """The state after a token read by id, which the token lexemes in the bit mask
        `lexemes` match; (DEAD, _) if none may come here."""
        state, top = self.flush(state, top)
        if state == DEAD:
            return DEAD, top
        return self.scan(lexemes, top)

    def token_lexemes(self, state: int, top: int) -> int:
        """The token lexemes (a bit mask) that may come next in (state, top)."""
        flushed, new_top = self.flush(state, top)
        allowed = self.parser.rows[new_top - 1].allowed & self.lexer.token_mask if flushed != DEAD else 0
        self.parser.top = top
        return allowed

    def eos_allowed(self, state: int, top: int) -> bool:
        """May EOS come in (state, top): the input may end there, or EOS ends a pending
        `stop=""` lexeme?"""
        return self.accepts_at(state, top) or self.eos_ends_lexeme(state, top)

    def eos_ends_lexeme(self, state: int, top: int) -> bool:
        """May EOS end the pending lexeme here (a `stop=""` lexeme that matches)?"""
        if self.lexer.is_fresh(state) or not self.lexer.greedy_accepting[state] & self.lexer.eos_mask:
            return False
        ok = self.flush(state, top)[0] != DEAD
        self.parser.top = top
        return ok

    def consume_byte(self, b: int) -> bool:
        """Read one byte; False (and no change) if the grammar cannot continue with it."""
        top, before = self.parser.top, self.state
        ok = self._step(*self.advance(before, top, b), top)
        if self.tracer is not None:
            self.tracer.byte_consumed(b, before, self.state if ok else DEAD, top, self.parser.top)
        return ok

    def consume_token(self, lexemes: int) -> bool:
        """Read a token by id, matched by the token lexemes in the bit mask `lexemes`;
        False (and no change) if none of them may come here."""
        top = self.parser.top
        return self._step(*self.advance_token(self.state, top, lexemes), top)

    def end_lexeme(self, dropped: int = 0) -> bool:
        """One step that ends the pending lexeme here (EOS ending a `stop=""` lexeme, or a
        spent token budget). With `dropped` (a bit mask), those lexemes are dropped first,
        and the lexeme ends only if no other is left. If it cannot end, the state becomes
        dead (nothing may follow but a rollback) and False is returned."""
        top = self.parser.top
        if dropped:
            kept = self.lexer.restrict(self.state, dropped)
            if kept != DEAD:
                return self._step(kept, top, top)
        state, new_top = self.flush(self.state, top)
        self._history.append((top, self.state))
        self.state, self.parser.top = state, (new_top if state != DEAD else top)
        return state != DEAD

    def end_token(self) -> None:
        """A token (or a consume_bytes call) ends here: leave a token boundary state."""
        after = self.lexer.after_token(self.state)
        if after != self.state:
            top = self.parser.top
            self._step(after, top, top)

    def _step(self, state: int, new_top: int, top: int) -> bool:
        if state == DEAD:
            self.parser.top = top
            return False
        self._history.append((top, self.state))
        self.state = state
        self.parser.top = new_top
        return True

    def consume_bytes(self, data: bytes) -> bool:
        """Read all of `data`; on failure, nothing is consumed."""
        start = len(self._history)
        for b in data:
            if not self.consume_byte(b):
                self.rollback(len(self._history) - start)
                return False
        return True

    def accepts_at(self, state: int, top: int) -> bool:
        """May the input end in (state, top)?"""
        flushed, new_top = self.flush(state, top)
        accepting = flushed != DEAD and self.parser.rows[new_top - 1].accepting
        self.parser.top = top
        return accepting

    def is_accepting(self) -> bool:
        """May the input end here?"""
        return self.accepts_at(self.state, self.parser.top)

    def rollback(self, n_bytes: int) -> None:
        """Undo the last n_bytes steps (bytes, tokens read by id, lexeme ends)."""
        if n_bytes <= 0:
            return
        if n_bytes > len(self._history):
            raise ValueError("cannot roll back %d bytes: only %d consumed" % (n_bytes, len(self._history)))
        self.parser.top, self.state = self._history[-n_bytes]
        del self._history[-n_bytes:]

    @property
    def bytes_consumed(self) -> int:
        """The steps taken: bytes, plus one per token read by id or lexeme ended early."""
        return len(self._history)

    def trace(self) -> str:
        """The live rows with their items, and the lexer state: for teaching and debugging."""
        parts = [self.parser.row_to_string(j) for j in range(self.parser.top)]
        parts.append("lexer: " + self.lexer.describe(self.state))
        return "\n".join(parts)
