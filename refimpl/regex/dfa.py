"""The lazily built DFA: states are expressions, transitions are derivatives.

State 0 is the dead state (∅); `start` is the state of the root expression. The transition of state s by byte b
is `table[s << 8 | b]`: a state number, or -1 while it has not been computed yet. A miss
calls the derivative engine once and fills the entry, so after warm-up a step is a single
list index — the property the trie walk relies on. Derivatives whose language is empty
(possible only with & and ~) are mapped to the dead state, decided exactly by
relevance.check_empty, so "dead" always means "no continuation can match".

>>> from refimpl.regex.exprs import ExprSet
>>> es = ExprSet()
>>> dfa = LazyDFA(es, es.plus(es.byte_range(ord("0"), ord("9"))))
>>> dfa.matches(b"2024"), dfa.matches(b""), dfa.matches(b"20x4")
(True, False, False)
>>> len(dfa.states)           # dead, start, and "digits seen"
3
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..errors import LimitError
from .classes import byte_classes, lowest_byte
from .derivative import derivative
from .exprs import ExprSet
from .relevance import check_empty

DEAD = 0


class LazyDFA:
    def __init__(self, es: ExprSet, root: int) -> None:
        self.es = es
        self.limit = es.limits.dfa_states
        self.states: List[int] = []  # state -> expression
        self.index: Dict[int, int] = {}  # expression -> state
        self.table: List[int] = []  # state << 8 | byte -> state, -1 = not computed
        self.accepting = bytearray()  # state -> ν(expression)
        self.transitions_computed = 0
        self._add(es.NOTHING)
        if es.has_boolean[root] and check_empty(es, root):
            root = es.NOTHING
        self.start = self._add(root)

    def _add(self, e: int) -> int:
        s = self.index.get(e)
        if s is None:
            s = len(self.states)
            if s >= self.limit:
                raise LimitError("dfa_states", self.limit, "states of one lazy DFA")
            self.states.append(e)
            self.index[e] = s
            self.table.extend([-1] * 256)
            self.accepting.append(1 if self.es.nullable(e) else 0)
        return s

    def fill(self, state: int, byte: int) -> int:
        """Compute, cache and return the transition of `state` by `byte`."""
        es = self.es
        d = derivative(es, self.states[state], byte)
        if es.has_boolean[d] and check_empty(es, d):
            d = es.NOTHING
        target = self._add(d)
        self.table[state << 8 | byte] = target
        self.transitions_computed += 1
        return target

    def expand(self, state: int) -> None:
        """Fill every transition of `state`: one derivative per byte class of its
        expression (bytes of one class have the same derivative), copied to the others."""
        table, base = self.table, state << 8
        for mask in byte_classes(self.es, self.states[state]):
            target = self.step(state, lowest_byte(mask))
            b = 0
            while mask:
                if mask & 1:
                    table[base | b] = target
                mask >>= 1
                b += 1

    def step(self, state: int, byte: int) -> int:
        target = self.table[state << 8 | byte]
        return target if target >= 0 else self.fill(state, byte)

    def run(self, data: bytes, state: Optional[int] = None) -> int:
        """The state after reading `data` from `state` (default: start; DEAD once it dies)."""
        table = self.table
        if state is None:
            state = self.start
        for b in data:
            if state == DEAD:
                break
            target = table[state << 8 | b]
            state = target if target >= 0 else self.fill(state, b)
        return state

    def matches(self, data: bytes) -> bool:
        """Does the whole of `data` match?"""
        return self.accepting[self.run(data)] == 1
