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

>>> from refimpl.frontends.lark import lark_to_ir
>>> r = Recognizer(lark_to_ir('start: NUMBER ("," NUMBER)*\\nNUMBER: /[0-9]+/').compile())
>>> r.consume_bytes(b"12,3"), r.is_accepting()
(True, True)
>>> r.consume_bytes(b","), r.is_accepting(), r.consume_bytes(b"x")
(True, False, False)
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, List, Optional, Tuple

from ..grammar.ir import CompiledGrammar
from ..limits import DEFAULT_LIMITS, Limits
from .compaction import Compaction
from .earley import SHARED_ITEMS, Closure, Parser, Row
from .lexer import DEAD, Lexer

if TYPE_CHECKING:
    from ..trace import Tracer


class LexedRow(Row):
    """An Earley row, and the lexer state at the start of the lexeme after it: what the
    recogniser derives from each row, kept with it (the parser builds these rows for
    it); -1 until the row is first scanned onto."""

    __slots__ = ("lexer_start",)

    def __init__(self, items: List[int]) -> None:
        super().__init__(items)
        self.lexer_start = -1


class Recognizer:
    """The recogniser of one input. Its state is the pair (lexer state, top): `state`
    and `top` are the state after what has been consumed. Every other method takes a
    state and returns one, and moves nothing: the walk, top-k and forced bytes explore
    from any state they hold (rows pushed while exploring sit above the consumed ones).
    Only `consume_*`, `end_*` and `rollback` change `state` and `top`."""

    def __init__(self, grammar: CompiledGrammar, limits: Limits = DEFAULT_LIMITS, leo: bool = True,
                 token_boundaries: bool = False, row_builder: Optional[Closure] = None) -> None:
        self.grammar = grammar
        self.lexer = Lexer.of(grammar)  # shared by every recogniser of the grammar
        #: the lexemes after which a token must end (`stop=`), when tokens are read
        #: (the Matcher); on plain bytes there are no token ends, and stop= is suffix=
        self.hidden_mask = self.lexer.hidden_mask if token_boundaries else 0
        self.parser: Parser[LexedRow] = Parser(grammar, limits, leo=leo, row=LexedRow, row_builder=row_builder)
        row0 = self.parser.rows[0]
        row0.lexer_start = self.lexer.row_start(row0.allowed, True, grammar.allow_initial_skip)
        self.state = row0.lexer_start
        self.top = 1
        self._history: List[Tuple[int, int]] = []  # (top, lexer state) before each step
        #: how many lexemes have ended (the Matcher's token budgets compare it around a token)
        self.lexemes_ended = 0
        #: hears of each byte consumed and lexeme scanned (trace.py); None: off
        self.tracer: Optional[Tracer] = None
        self._compaction: Optional[Compaction] = None
        # what short_path and push_path hand over, made on first use
        self._short_parts: Optional[Tuple[List[LexedRow], List[int], List[int], int, int, int]] = None
        self._push_parts: Optional[Tuple[object, ...]] = None

    def scan(self, lexemes: int, top: int) -> Tuple[int, int]:
        """End the pending lexeme as one of `lexemes` (a bit mask) after rows[:top].

        Returns the lexer start state of the next lexeme and the new top, or (DEAD, top)
        when the parser cannot take any of these lexemes here.
        """
        parser, lexer = self.parser, self.lexer
        rows = parser.rows
        # the common case in short: a row pushed here before for these lexemes (by `push`,
        # or by `push_copy` for the once-%ignores among them), and the lexer start after it
        key = lexemes if not lexemes & lexer.skip_mask else lexemes & lexer.once_skip_mask
        if key and self.tracer is None:
            row = rows[top - 1].children.get(key)
            if row is not None and row.lexer_start >= 0:  # type: ignore[attr-defined]
                parser.rows_reused += 1
                self.lexemes_ended += 1
                if top < len(rows):  # parser._place(top, row), inline: the walk's hot path
                    rows[top] = row  # type: ignore[call-overload]  # a row this parser's tree built
                else:
                    rows.append(row)  # type: ignore[arg-type]
                return row.lexer_start, top + 1  # type: ignore[attr-defined]
        reused = parser.rows_reused
        if lexemes & lexer.skip_mask:  # %ignore: the parser does not move
            once = lexemes & lexer.once_skip_mask
            if not once:
                start, new_top = rows[top - 1].lexer_start, top
            else:
                new_top = parser.push_copy(top, once)
                row = rows[top]
                start = row.lexer_start = lexer.without(rows[top - 1].lexer_start, once)
        else:
            new_top = parser.push(top, lexemes)
            if not new_top:
                return DEAD, top
            row = rows[top]
            start = row.lexer_start
            if start < 0:
                start = row.lexer_start = lexer.start_after(row.allowed)
        self.lexemes_ended += 1
        if self.tracer is not None:
            self.tracer.lexeme_scanned(lexemes, top, new_top, parser.rows_reused != reused)
        return start, new_top

    def short_path(self) -> Optional[Tuple[List[LexedRow], List[int], List[int], int, int, int]]:
        """What `scan`'s short path reads, with `restart` and `advance` around it, for a
        walker in another language that takes it without calling back (accel/_native.c,
        which mirrors those lines): the rows, the lexer's `greedy_accepting` and
        `lazy_accepting`, `skip_mask`, `once_skip_mask`, and `hidden_mask`. None while a
        tracer listens (it hears of every scan). Such a walker counts the rows it reused
        and the lexemes it ended with `short_path_taken`."""
        if self.tracer is not None:
            return None
        if self._short_parts is None:  # the same objects for the recogniser's life (a copy's own: __copy__)
            lexer = self.lexer
            self._short_parts = (self.parser.rows, lexer.greedy_accepting, lexer.lazy_accepting, lexer.skip_mask,
                                 lexer.once_skip_mask, self.hidden_mask)
        return self._short_parts

    def short_path_taken(self, reused: int, ended: int, built: int = 0) -> None:
        """Count, as `scan` does, what a walker did on the short path (`short_path`): the
        rows it placed again, the lexemes it ended, and the rows it built (`push_path`)."""
        self.parser.rows_reused += reused
        self.lexemes_ended += ended
        if built:
            self.parser.rows_built += built

    def push_path(self) -> Optional[Tuple[object, ...]]:
        """What `scan` reads where it pushes a new row — for a lexeme, or the copy for an
        %ignore matched once (`push_copy`) — for a walker in another language whose own row
        build is the parser's `row_builder` (the native backend's, accel/_native.c, which mirrors
        those lines of `scan`, Parser.push and Parser.push_copy): the parser's `row_builder` and
        `tables`, its Leo transitive items (None without; their memo, each row's `leo`, may
        be read first), the row class (LexedRow: such a walker may make its rows as
        LexedRow.__init__ does), the `rows` limit, the tree of rows (and SHARED_ITEMS, for
        its count: RowTree.grown), the lexer's memo of row starts with the function that
        fills it (`start_after`), `lexer.without` with what it reads (`possible`, and its
        memo `start_state`'s `_starts`). None while a tracer listens. Such a walker counts
        the rows it built with `short_path_taken`."""
        if self.tracer is not None:
            return None
        if self._push_parts is None:  # as short_path's
            p, lexer = self.parser, self.lexer
            self._push_parts = (p.row_builder, p.tables, p._transitive if p.leo else None, p.row, p.limits.rows,
                                p.tree, lexer._starts_after, lexer.start_after, lexer.without, SHARED_ITEMS,
                                lexer.possible, lexer._starts)
        return self._push_parts

    def lexer_start(self, top: int) -> int:
        """The lexer state at the start of a lexeme after rows[:top]."""
        return self.parser.rows[top - 1].lexer_start

    def advance(self, state: int, top: int, b: int) -> Tuple[int, int]:
        """The state after byte b from (state, top); (DEAD, _) if b is rejected."""
        lexer = self.lexer
        t = lexer.table[state << 8 | b]  # lexer.step(state, b), inline (twice): the walk calls advance
        if t < 0:
            t = lexer.fill(state, b)
        if t == DEAD:
            start, top = self.restart(state, top)
            if start == DEAD:
                return DEAD, top
            t = lexer.table[start << 8 | b]
            if t < 0:
                t = lexer.fill(start, b)
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
        return self.parser.rows[new_top - 1].allowed & self.lexer.token_mask if flushed != DEAD else 0

    def eos_allowed(self, state: int, top: int) -> bool:
        """May EOS come in (state, top): the input may end there, or EOS ends a pending
        `stop=""` lexeme?"""
        return self.accepts_at(state, top) or self.eos_ends_lexeme(state, top)

    def eos_ends_lexeme(self, state: int, top: int) -> bool:
        """May EOS end the pending lexeme here (a `stop=""` lexeme that matches)?"""
        if self.lexer.is_fresh(state) or not self.lexer.greedy_accepting[state] & self.lexer.eos_mask:
            return False
        return self.flush(state, top)[0] != DEAD

    def accepts_at(self, state: int, top: int) -> bool:
        """May the input end in (state, top)?"""
        flushed, new_top = self.flush(state, top)
        return flushed != DEAD and self.parser.rows[new_top - 1].accepting

    def future(self, state: int, top: int) -> Tuple[object, ...]:
        """A key that two states share when every input does the same from both (their
        futures are equal): the lexer state, the lexer start after the top row and the
        compacted rows (compaction.py). The mask cache's key; forced bytes' cycles."""
        if self._compaction is None:
            self._compaction = Compaction(self.parser)
        return (state, self.lexer_start(top), self._compaction.key(top))

    # -- consuming: the only methods that change (state, top) ------------------------------

    def consume_byte(self, b: int) -> bool:
        """Read one byte; False (and no change) if the grammar cannot continue with it."""
        before, top = self.state, self.top
        ok = self._step(*self.advance(before, top, b))
        if self.tracer is not None:
            self.tracer.byte_consumed(b, before, self.state if ok else DEAD, top, self.top)
        return ok

    def consume_token(self, lexemes: int) -> bool:
        """Read a token by id, matched by the token lexemes in the bit mask `lexemes`;
        False (and no change) if none of them may come here."""
        return self._step(*self.advance_token(self.state, self.top, lexemes))

    def end_lexeme(self, dropped: int = 0) -> bool:
        """One step that ends the pending lexeme here (EOS ending a `stop=""` lexeme, or a
        spent token budget). With `dropped` (a bit mask), those lexemes are dropped first,
        and the lexeme ends only if no other is left. If it cannot end, the state becomes
        dead (nothing may follow but a rollback) and False is returned."""
        if dropped:
            kept = self.lexer.restrict(self.state, dropped)
            if kept != DEAD:
                return self._step(kept, self.top)
        state, top = self.flush(self.state, self.top)
        self._history.append((self.top, self.state))
        if state != DEAD:
            self.top = top
        self.state = state
        return state != DEAD

    def end_token(self) -> None:
        """A token (or a consume_bytes call) ends here: leave a token boundary state."""
        after = self.lexer.after_token(self.state)
        if after != self.state:
            self._step(after, self.top)

    def _step(self, state: int, top: int) -> bool:
        """Move to (state, top) unless it is dead; one step of the history."""
        if state == DEAD:
            return False
        self._history.append((self.top, self.state))
        self.state, self.top = state, top
        return True

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
        return self.accepts_at(self.state, self.top)

    def rollback(self, n_bytes: int) -> None:
        """Undo the last n_bytes steps (bytes, tokens read by id, lexeme ends)."""
        if n_bytes <= 0:
            return
        if n_bytes > len(self._history):
            raise ValueError("cannot roll back %d bytes: only %d consumed" % (n_bytes, len(self._history)))
        self.top, self.state = self._history[-n_bytes]
        del self._history[-n_bytes:]

    @property
    def bytes_consumed(self) -> int:
        """The steps taken: bytes, plus one per token read by id or lexeme ended early."""
        return len(self._history)

    def __copy__(self) -> "Recognizer":
        """An independent recogniser in the same state (the Matcher's `clone`): it shares
        the grammar, the lexer and the rows built so far (a row never changes once built;
        only its caches grow), and copies the rest: (state, top), the history, the stack
        of rows. Its tracer is off."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.parser = copy.copy(self.parser)
        new.parser.rows = list(self.parser.rows)
        new._history = list(self._history)
        new._compaction = None  # its memos are keyed by this parser's rows
        new._short_parts = new._push_parts = None  # they hold this parser's rows
        new.tracer = None
        return new

    def trace(self) -> str:
        """The live rows with their items, and the lexer state: for teaching and debugging."""
        parts = [self.parser.row_to_string(j) for j in range(self.top)]
        parts.append("lexer: " + self.lexer.describe(self.state))
        return "\n".join(parts)
