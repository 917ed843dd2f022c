"""The byte-level recogniser: the lexer and the Earley parser, one byte at a time.

How a byte b moves the state (lexer state s, parser rows, `pending`: bytes read into the
current lexeme), following llguidance's lexer (docs/semantics.md):

1. t = step(s, b). If t is dead, the current lexeme ends *before* b: the greedy lexemes
   that match in s are scanned (the parser pushes a row; the %ignore lexeme pushes
   nothing), and b is read again from the new row's lexer start state. If no lexeme
   matches in s (or no bytes were pending), b is rejected.
2. If a lazy lexeme matches in t, it ends right there, b included, and is scanned.
3. Otherwise t is the new state and b is pending.

The input is accepted at its end when the pending lexeme (if any) can end and the top
row holds the accepting item [S' → S •, 0].

>>> from refimpl.grammar.lark import parse_lark
>>> r = Recognizer(parse_lark('start: NUMBER ("," NUMBER)*\\nNUMBER: /[0-9]+/').compile())
>>> r.consume_bytes(b"12,3"), r.is_accepting()
(True, True)
>>> r.consume_bytes(b","), r.is_accepting(), r.consume_bytes(b"x")
(True, False, False)
"""
from __future__ import annotations

from typing import List, Tuple

from .earley import Parser
from .grammar.ir import CompiledGrammar
from .lexer import DEAD, Lexer
from .limits import DEFAULT_LIMITS, Limits


class Recognizer:
    def __init__(self, grammar: CompiledGrammar, limits: Limits = DEFAULT_LIMITS, leo: bool = True) -> None:
        self.grammar = grammar
        self.lexer = Lexer(grammar)
        self.parser = Parser(grammar, limits, leo=leo)
        self.parser.rows[0].lexer_start = self._lexer_start(self.parser.rows[0], initial=True)
        self.state = self.parser.rows[0].lexer_start
        self.pending = False
        self._history: List[Tuple[int, int, bool]] = []  # (rows, lexer state, pending) per byte

    def _lexer_start(self, row, initial: bool = False) -> int:
        """The lexer state at the start of a lexeme after `row`.

        The %ignore lexeme is allowed where some lexeme is (not after the grammar is
        complete) and, unless `allow_initial_skip`, not before the first lexeme.
        """
        allowed = row.allowed
        lexer = self.lexer
        if lexer.skip >= 0 and allowed and (not initial or self.grammar.allow_initial_skip):
            allowed |= 1 << lexer.skip
        return lexer.start_state(allowed)

    def _scan(self, lexemes: int) -> bool:
        """End the current lexeme as one of `lexemes`; restart the lexer after it."""
        lexer, parser = self.lexer, self.parser
        if lexer.skip >= 0 and (lexemes >> lexer.skip) & 1:
            row = parser.row  # %ignore: the parser does not move
        else:
            row = parser.push(lexemes)
            if row is None:
                return False
            if row.lexer_start < 0:
                row.lexer_start = self._lexer_start(row)
        self.state = row.lexer_start
        self.pending = False
        return True

    def consume_byte(self, b: int) -> bool:
        """Read one byte; False (and no change) if the grammar cannot continue with it."""
        snapshot = (self.parser.top, self.state, self.pending)
        lexer = self.lexer
        t = lexer.step(self.state, b)
        if t == DEAD:
            lexemes = lexer.greedy_accepting[self.state]
            if not (self.pending and lexemes and self._scan(lexemes)):
                return self._undo(snapshot)
            t = lexer.step(self.state, b)
            if t == DEAD:
                return self._undo(snapshot)
        if lexer.lazy_accepting[t]:
            if not self._scan(lexer.lazy_accepting[t]):
                return self._undo(snapshot)
        else:
            self.state, self.pending = t, True
        self._history.append(snapshot)
        return True

    def _undo(self, snapshot: Tuple[int, int, bool]) -> bool:
        self.parser.top, self.state, self.pending = snapshot
        return False

    def consume_bytes(self, data: bytes) -> bool:
        """Read all of `data`; on failure, nothing is consumed."""
        start = len(self._history)
        for b in data:
            if not self.consume_byte(b):
                self.rollback(len(self._history) - start)
                return False
        return True

    def is_accepting(self) -> bool:
        """May the input end here?"""
        if not self.pending:
            return self.parser.row.accepting
        snapshot = (self.parser.top, self.state, self.pending)
        lexemes = self.lexer.greedy_accepting[self.state]
        accepting = bool(lexemes) and self._scan(lexemes) and self.parser.row.accepting
        self._undo(snapshot)
        return accepting

    def rollback(self, n_bytes: int) -> None:
        """Undo the last n_bytes bytes consumed."""
        if n_bytes <= 0:
            return
        if n_bytes > len(self._history):
            raise ValueError("cannot roll back %d bytes: only %d consumed" % (n_bytes, len(self._history)))
        self.parser.top, self.state, self.pending = self._history[-n_bytes]
        del self._history[-n_bytes:]

    @property
    def bytes_consumed(self) -> int:
        return len(self._history)

    def trace(self) -> str:
        """The live rows with their items, and the lexer state: for teaching and debugging."""
        parts = [self.parser.row_to_string(j) for j in range(self.parser.top)]
        parts.append("lexer: " + self.lexer.describe(self.state))
        return "\n".join(parts)
