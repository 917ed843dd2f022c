"""The engine's tracing hook: what the engine reports while it computes, for `maskref explain`.

The recogniser, the trie walk and the Matcher call a `Tracer`'s methods at the events a
learner wants to see — a byte consumed, a lexeme scanned into a new Earley row, a trie
subtree skipped (at which byte, in which lexer state, and why) or taken whole, a mask
begun and ended. Pictures are drawn from these events and from the engine's own tables
(refimpl/showing/), never from a second implementation that could drift.

Off by default and free when off: the engine holds `None` and tests it only at those
events, never on the walk's common per-node path (docs/benchmarks.md measures it).

>>> from refimpl import Grammar, Matcher, Vocabulary
>>> m = Matcher(Grammar.from_regex("[0-9]+"), Vocabulary.from_bytes([b"1", b"12", b"x", b"1x"]))
>>> m.tracer = Tracer()
>>> m.consume(0), len(m.mask())
(True, 2)
>>> [(e.byte, e.before != e.after) for e in m.tracer.consumed]
[(49, True)]
>>> for s in m.tracer.masks[-1].skips:    # "x" and "1x" after "1"
...     print(chr(s.byte), s.why)
x a lexeme ends before the byte, and none that may come next begins with it
x a lexeme ends before the byte, and none that may come next begins with it
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple


class Scanned(NamedTuple):
    """A lexeme (a bit mask of lexemes matching the same bytes) scanned on rows[:top]:
    the row pushed at index new_top - 1, built now or reused (built before from the same
    row for the same lexemes); new_top == top for an %ignore without a row."""

    lexemes: int
    top: int
    new_top: int
    reused: bool
    walking: bool  # during a mask's walk, not while consuming


class Consumed(NamedTuple):
    """A byte consumed: the lexer state and parser top before and after it, and the
    lexemes it made end (scanned before the byte is read again, or a lazy one with it)."""

    byte: int
    before: int
    after: int
    top: int
    new_top: int
    scans: Tuple[Scanned, ...]


class Skipped(NamedTuple):
    """A trie subtree the walk skipped: its root `node` (in the trie walked, `trie`), the
    byte there and the lexer state before it. `restart` says why: -1, no lexeme reads the
    byte and none may end before it; 0, lexemes may end before it but the parser takes
    none of them there; > 0, the next lexeme (its start state) cannot begin with the
    byte; -2, the parser refused the lexeme (advance)."""

    trie: int
    node: int
    byte: int
    state: int
    restart: int

    @property
    def why(self) -> str:
        return WHY[min(self.restart, 1)]


WHY = {
    -1: "no lexeme reads the byte, and none may end before it",
    0: "a lexeme may end before the byte, but the parser takes none of them here",
    1: "a lexeme ends before the byte, and none that may come next begins with it",
    -2: "the parser refuses the lexeme the byte ends",
}


class Whole(NamedTuple):
    """A trie subtree taken whole: every string in it leads the lexer state back to itself."""

    trie: int
    node: int
    state: int


class MaskTrace:
    """One mask: where it started, the tries walked (the slices' where slices apply), what
    the walk skipped and took whole, the lexemes it scanned, and its totals."""

    def __init__(self, state: int, top: int) -> None:
        self.state = state
        self.top = top
        self.tries: List[object] = []
        self.slices: Tuple[str, ...] = ()  # the slices applied whole (their patterns)
        self.skips: List[Skipped] = []
        self.wholes: List[Whole] = []
        self.scans: List[Scanned] = []
        self.restarts = 0  # restart() answers asked by the walk
        self.nodes = 0  # trie nodes walked (as Matcher.stats counts them)
        self.cached = False  # answered by the mask cache, no walk


class Tracer:
    """Records the engine's events; set as `Matcher.tracer` (which passes it on to the
    recogniser and the walk). Subclass it to react to events as they come."""

    def __init__(self) -> None:
        self.consumed: List[Consumed] = []
        #: lexemes scanned outside masks since the last byte consumed: by a token read by
        #: id or EOS, or by queries (forced bytes, may the input end)
        self.scans: List[Scanned] = []
        self.masks: List[MaskTrace] = []
        self._mask: Optional[MaskTrace] = None

    # -- the Matcher ----------------------------------------------------------------------

    def mask_started(self, state: int, top: int) -> None:
        self._mask = MaskTrace(state, top)
        self.masks.append(self._mask)

    def trie_walked(self, trie: object, slices: Sequence[str]) -> None:
        assert self._mask is not None
        self._mask.tries.append(trie)
        self._mask.slices = tuple(slices)

    def mask_ended(self, nodes: int, cached: bool) -> None:
        assert self._mask is not None
        self._mask.nodes, self._mask.cached = nodes, cached
        self._mask = None

    # -- the recogniser -------------------------------------------------------------------

    def byte_consumed(self, byte: int, before: int, after: int, top: int, new_top: int) -> None:
        self.consumed.append(Consumed(byte, before, after, top, new_top, tuple(self.scans)))
        self.scans = []

    def lexeme_scanned(self, lexemes: int, top: int, new_top: int, reused: bool) -> None:
        mask = self._mask
        event = Scanned(lexemes, top, new_top, reused, mask is not None)
        (mask.scans if mask is not None else self.scans).append(event)

    def restart_asked(self) -> None:
        if self._mask is not None:
            self._mask.restarts += 1

    # -- the trie walk --------------------------------------------------------------------

    def skipped(self, node: int, byte: int, state: int, restart: int) -> None:
        assert self._mask is not None
        self._mask.skips.append(Skipped(len(self._mask.tries) - 1, node, byte, state, restart))

    def taken_whole(self, node: int, state: int) -> None:
        assert self._mask is not None
        self._mask.wholes.append(Whole(len(self._mask.tries) - 1, node, state))
