"""The lexer: one lazy DFA over *all* lexemes a parser row allows at once.

A lexer state is a hash-consed tuple of (lexeme index, expression) pairs: the lexemes
still alive and, for each, the derivative of its regex by the bytes read so far — plus
one flag, *fresh*, set only on start states (no byte read yet), so that a state tells
whether a lexeme is pending: a fresh state never ends a lexeme (lexemes are not empty). The
transition of (state, byte) is the tuple of non-∅ derivatives, computed on first use (for
every byte of the byte's class at once: `fill`) and cached in the flat table
`table[state << 8 | byte]` (-1 while unknown), like the regex engine's LazyDFA: after
warm-up a step is one list index. State 0 is the dead state: no lexeme alive, the input
went wrong. (A fresh state with no lexemes is not dead: the input is fine so far, only
nothing more may follow.) A state's start is set by the parser: `start_state(allowed)` holds the
lexemes the current Earley row allows, so only they are live.

Per state, three bit masks over lexeme indices:
  greedy_accepting  greedy lexemes that match here (they end when the next byte is dead)
  lazy_accepting    lazy lexemes that match here (they end right here)
  possible          every lexeme still alive
and, for the trie walk (in any language), one byte `ends[state]`: bit 1 set if a greedy
lexeme matches (a dead next byte may end it), bit 2 if a lazy one does (it ends here).
The table and `ends` are machine-int arrays, so an accelerated walker reads them directly.

A state's *loop* is what leads back to it (`loop`): the bytes whose transition is the
state itself, and, as a whole, the multi-byte UTF-8 characters if every one of them does
— inside a JSON string, every character but the quote, the backslash and the control
characters. The walk takes a trie subtree whole where all it reads loops
(tokens/subtrees.py). Loops are computed on demand; `loop_of[state]` (-1 until then) is
the id of the state's *escapes*, what does not loop, as a set of bits 0..255 (bytes) and
256 (`MULTIBYTE`: not every multi-byte character): `escapes[id]` as an int,
`escape_words[5 id : 5 id + 5]` as 64-bit words for walkers in other languages. Id 0 is
"everything escapes" (no loop).

A *token boundary* state follows a lexeme whose end must be a token's end (`stop=`, its
stop text hidden): every byte is dead there, and the Matcher moves on to the next start
state when the token ends (`boundary`, `after_token`).

After the grammar's lexemes come the %ignore lexemes ("skips"), one per lexeme class that
has one. A skip is allowed wherever some lexeme of its class is (`row_start`); the skip of
an `ignore_once` class at most once between two lexemes (`without`). See
docs/semantics.md for how lexemes end.
"""
from __future__ import annotations

import threading
from array import array
from typing import Dict, List, Tuple

from ..errors import LimitError
from ..grammar.ir import CompiledGrammar
from ..regex.classes import byte_classes, class_of, lowest_byte
from ..regex.derivative import derivative
from ..regex.exprs import ALL_BYTES, ExprSet
from ..regex.printer import to_string
from ..regex.relevance import check_empty
from ..regex.unicode import MULTIBYTE_SEQUENCES

DEAD = 0
GREEDY_ENDS = 1
LAZY_ENDS = 2

_UNKNOWN_ROW = array("i", [-1] * 256)
_CREATING = threading.Lock()  # held while a grammar's shared lexer is made (Lexer.of)

Pairs = Tuple[Tuple[int, int], ...]  # ((lexeme, expr), ...)
#: (fresh, pairs); `fresh` is True on start states, and on a *token boundary* state it is
#: -s, for the start state s that follows once the token ends (see `boundary`)
LexerState = Tuple[int, Pairs]


#: the bit after the 256 bytes in escapes (and in the trie's subtree sets): every
#: multi-byte UTF-8 character
MULTIBYTE = 1 << 256
EVERYTHING = ALL_BYTES | MULTIBYTE
WORDS = 5  # 64-bit words per set of bits 0..256


def words(mask: int) -> List[int]:
    """A set of bits 0..256 as WORDS 64-bit words, lowest first."""
    return [mask >> (64 * i) & 0xFFFFFFFFFFFFFFFF for i in range(WORDS)]


def _loops(es: ExprSet, e: int, lazy: bool) -> int:
    """What leads e back to itself: the bytes b with D_b(e) = e (one derivative per class
    of e's byte partition, classes.byte_classes: bytes of a class have one derivative),
    and MULTIBYTE if D_c(e) = e for every multi-byte character c — followed class by
    class along each UTF-8 sequence; a lazy lexeme must not match halfway through one
    (it would end there)."""
    classes = byte_classes(es, e)  # its derivatives' byte sets are among e's
    loops = 0
    for c in classes:
        if derivative(es, e, lowest_byte(c)) == e:
            loops |= c
    for seq in MULTIBYTE_SEQUENCES:
        frontier = {e}
        for k, (lo, hi) in enumerate(seq):
            allowed = ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
            frontier = {derivative(es, x, lowest_byte(c & allowed)) for x in frontier for c in classes if c & allowed}
            if lazy and k + 1 < len(seq) and any(es.nullable(x) for x in frontier):
                return loops
        if frontier != {e}:
            return loops
    return loops | MULTIBYTE


class Lexer:
    def __init__(self, grammar: CompiledGrammar) -> None:
        self.es = es = grammar.es
        self.exprs = [lx.expr for lx in grammar.lexemes]
        self.names = [lx.name for lx in grammar.lexemes]
        lazy = [lx.lazy for lx in grammar.lexemes]
        skip_of_class = {}
        for lexeme_class, expr in sorted(grammar.ignores.items()):
            skip_of_class[lexeme_class] = len(self.exprs)
            self.exprs.append(expr)
            self.names.append("%ignore" if lexeme_class == 0 else "%%ignore(%d)" % lexeme_class)
            lazy.append(False)
        #: bit mask of the skip lexemes; per grammar lexeme, the bit of its class's skip
        self.skip_mask = sum(1 << i for i in skip_of_class.values())
        #: the skips of classes whose %ignore matches at most once between two lexemes
        self.once_skip_mask = sum(1 << i for c, i in skip_of_class.items() if c in grammar.ignore_once)
        self._skip_bit = [
            (1 << skip_of_class[lx.lexeme_class]) if lx.lexeme_class in skip_of_class else 0
            for lx in grammar.lexemes
        ]
        self._row_starts: Dict[Tuple[int, bool], int] = {}
        self._starts_after: Dict[int, int] = {}
        self.lazy_mask = sum(1 << i for i, z in enumerate(lazy) if z)
        #: token lexemes (they match one token by id, never text: their expression is ∅,
        #: so no lexer state holds them), and lexemes that EOS may end (`stop=""`)
        self.token_mask = sum(1 << i for i, lx in enumerate(grammar.lexemes) if lx.tokens is not None)
        self.eos_mask = sum(1 << i for i, lx in enumerate(grammar.lexemes) if lx.ends_at_eos)
        #: lexemes whose end must be a token's end (`stop=`: the stop is hidden)
        self.hidden_mask = sum(1 << i for i, lx in enumerate(grammar.lexemes) if lx.hidden)
        #: per lexeme with a token budget, its max_tokens (see `over_budget`)
        self.budgets = {i: lx.max_tokens for i, lx in enumerate(grammar.lexemes) if lx.max_tokens is not None}
        #: budgets kept xgrammar's way: spent, the lexeme ends only where it can
        self.relaxed_mask = sum(1 << i for i, lx in enumerate(grammar.lexemes) if lx.budget_relaxed)
        self.limit = es.limits.dfa_states
        self.states: List[LexerState] = []
        self.index: Dict[LexerState, int] = {}
        self.table = array("i")
        self.ends = bytearray()
        self.greedy_accepting: List[int] = []
        self.lazy_accepting: List[int] = []
        self.possible: List[int] = []
        #: per state: the id of its escapes (the bytes that do not lead back to it), -1
        #: until `loop` computes it; ids of equal sets are equal, 0 is all bytes
        self.loop_of = array("i")
        self.escapes: List[int] = [EVERYTHING]
        self.escape_words = array("Q", words(EVERYTHING))
        self._escape_ids: Dict[int, int] = {EVERYTHING: 0}
        self.transitions_computed = 0
        self._starts: Dict[int, int] = {}
        #: tables other modules derive from this lexer's states, shared with it (the
        #: slicer's SliceOracle per slice patterns)
        self.derived: Dict[Tuple[object, ...], object] = {}
        self._lock = threading.Lock()
        self._add((False, ()))

    @classmethod
    def of(cls, grammar: CompiledGrammar) -> "Lexer":
        """The grammar's one lexer, built on first use and shared by every recogniser
        (and so every Matcher and backend) of the grammar: its states and table do not
        depend on the input, only on which of them inputs have reached so far."""
        lexer = grammar.shared.get("lexer")
        if not isinstance(lexer, Lexer):
            with _CREATING:
                lexer = grammar.shared.get("lexer")
                if not isinstance(lexer, Lexer):
                    lexer = grammar.shared["lexer"] = cls(grammar)
        return lexer

    def _add(self, state: LexerState) -> int:
        s = self.index.get(state)
        if s is not None:
            return s
        with self._lock:
            return self._new(state)

    def _new(self, state: LexerState) -> int:
        """Add a state (under the lock). Its rows of the per-state arrays are complete
        before its number is published in `index` and, by `fill`, in the table."""
        s = self.index.get(state)  # another thread may have added it meanwhile
        if s is not None:
            return s
        s = len(self.states)
        if s >= self.limit:
            raise LimitError("dfa_states", self.limit, "lexer states")
        fresh, pairs = state
        accepting = possible = 0
        for lexeme, e in pairs:
            possible |= 1 << lexeme
            if self.es.nullable(e) and not fresh:
                accepting |= 1 << lexeme
        self.states.append(state)
        self.table.extend(_UNKNOWN_ROW)
        greedy, lazy = accepting & ~self.lazy_mask, accepting & self.lazy_mask
        self.greedy_accepting.append(greedy)
        self.lazy_accepting.append(lazy)
        self.ends.append((GREEDY_ENDS if greedy else 0) | (LAZY_ENDS if lazy else 0))
        self.possible.append(possible)
        self.loop_of.append(-1)
        self.index[state] = s
        return s

    def _live(self, pairs: Pairs) -> Pairs:
        """Drop lexemes whose expression can match nothing any more (∅, or empty by &/~)."""
        es = self.es
        return tuple(
            (lx, e) for lx, e in pairs
            if e != es.NOTHING and not (es.has_boolean[e] and check_empty(es, e))
        )

    def start_state(self, allowed: int) -> int:
        """The state at the start of a lexeme, with the lexemes in the bit mask `allowed`."""
        s = self._starts.get(allowed)
        if s is None:
            pairs = tuple((i, e) for i, e in enumerate(self.exprs) if (allowed >> i) & 1)
            s = self._starts[allowed] = self._add((True, self._live(pairs)))
        return s

    def row_start(self, allowed: int, initial: bool, allow_initial_skip: bool) -> int:
        """The start state after a parser row that allows the lexemes in `allowed`.

        A class's %ignore is allowed where some lexeme of that class is (so not after the
        grammar is complete), and before the first lexeme only with `allow_initial_skip`.
        """
        key = (allowed, initial and not allow_initial_skip)
        s = self._row_starts.get(key)
        if s is None:
            with_skips = allowed
            if self.skip_mask and not key[1]:
                i, rest = 0, allowed
                while rest:
                    if rest & 1:
                        with_skips |= self._skip_bit[i]
                    rest >>= 1
                    i += 1
            s = self._row_starts[key] = self.start_state(with_skips)
        return s

    def start_after(self, allowed: int) -> int:
        """`row_start` after a row that is not the first (one dict read: asked at every
        lexeme the walk scans)."""
        s = self._starts_after.get(allowed)
        if s is None:
            s = self._starts_after[allowed] = self.row_start(allowed, False, True)
        return s

    def without(self, start: int, lexemes: int) -> int:
        """The start state `start` with the lexemes in the bit mask `lexemes` removed (once
        a matched-once %ignore has been skipped, it may not come again before a lexeme)."""
        return self.start_state(self.possible[start] & ~lexemes)

    def over_budget(self, state: int, n_tokens: int) -> int:
        """The lexemes alive in `state` whose max_tokens is at most `n_tokens` (a bit mask),
        but for a relaxed budget only if the lexeme can end here."""
        possible = self.possible[state] & ~(self.relaxed_mask & ~self.greedy_accepting[state] & ~self.lazy_accepting[state])
        return sum(1 << i for i, n in self.budgets.items() if n <= n_tokens and (possible >> i) & 1)

    def boundary(self, start: int) -> int:
        """A state where a lexeme has ended and the token must end too: no byte may
        follow (every transition is dead), and once the token ends the lexer goes on from
        `start` (`after_token`). For llguidance's `stop=`, whose stop text is not output."""
        return self._add((-start, ()))

    def after_token(self, state: int) -> int:
        """The state to go on from at a token's end: `state`, or the start after a boundary."""
        fresh = self.states[state][0]
        return -fresh if fresh < 0 else state

    def restrict(self, state: int, lexemes: int) -> int:
        """`state` with the lexemes in the bit mask `lexemes` dropped (DEAD if none is left)."""
        fresh, pairs = self.states[state]
        kept = tuple((lx, e) for lx, e in pairs if not (lexemes >> lx) & 1)
        return self._add((fresh, kept)) if kept else DEAD

    def fill(self, state: int, byte: int) -> int:
        """Compute and cache the transition of `state` by `byte`, and by every byte of its
        class (`class_of`: the bytes the state's expressions cannot tell apart have one
        derivative), so a state costs one derivative per class the walk meets, not per byte."""
        es = self.es
        pairs = self.states[state][1]
        target = self._add((False, self._live(tuple((lx, derivative(es, e, byte)) for lx, e in pairs))))
        table, base = self.table, state << 8
        same = class_of(es, [e for _, e in pairs], byte)
        while same:
            low = same & -same
            table[base | low.bit_length() - 1] = target
            same ^= low
        self.transitions_computed += 1
        return target

    def loop(self, state: int) -> int:
        """The id of the state's escapes (see the module docstring); computes its loop once.

        Byte b loops when every pending lexeme's expression e has D_b(e) = e (Brzozowski's
        derivative; hash-consing makes equal expressions one node), so the transition by b
        is the state itself; so do the multi-byte characters when each does for every e
        (`_loops`). Computed on derivatives, not in the table (no transition is filled). A
        fresh state has no loop: a byte read makes it not fresh.

        >>> from refimpl.frontends.grammar import Grammar
        >>> from refimpl.recognition.recognizer import Recognizer
        >>> r = Recognizer(Grammar.from_regex('"[^"]*"').compiled)
        >>> r.consume_bytes(b'"a')
        True
        >>> lexer, inside = r.lexer, r.state
        >>> escapes = lexer.escapes[lexer.loop(inside)]
        >>> [b for b in range(128) if escapes >> b & 1], lexer.step(inside, ord("z")) == inside
        ([34], True)
        >>> escapes >> 0xC3 & 1, escapes & MULTIBYTE    # a lead byte alone does not loop, "é" does
        (1, 0)
        """
        known = self.loop_of[state]
        if known >= 0:
            return known
        fresh, pairs = self.states[state]
        loops = 0
        if pairs and not fresh:
            loops = EVERYTHING
            for lexeme, e in pairs:
                loops &= _loops(self.es, e, bool(self.lazy_mask >> lexeme & 1))
        escapes = EVERYTHING & ~loops
        with self._lock:
            i = self._escape_ids.get(escapes)
            if i is None:
                i = self._escape_ids[escapes] = len(self.escapes)
                self.escape_words.extend(words(escapes))  # the words before the id is published
                self.escapes.append(escapes)
            self.loop_of[state] = i
        return i

    def step(self, state: int, byte: int) -> int:
        target = self.table[state << 8 | byte]
        return target if target >= 0 else self.fill(state, byte)

    def describe(self, state: int) -> str:
        """A state as text: each live lexeme with its current derivative."""
        if state == DEAD:
            return "dead"
        return ", ".join("%s: %s" % pair for pair in self.pairs(state))

    def pairs(self, state: int, width: int = 300) -> List[Tuple[str, str]]:
        """A state's (lexeme, regex) pairs as text: each live lexeme's name and its
        derivative by the bytes read so far (printed at most `width` characters long)."""
        return [(self.names[lx], to_string(self.es, e, width)) for lx, e in self.states[state][1]]

    def is_fresh(self, state: int) -> bool:
        """Is `state` the start of a lexeme (no byte of it read yet)?"""
        return bool(self.states[state][0])
