"""Compacted Earley sets: a key for the parser's state that two states accepting the same
continuations share (the KBNF seed article; docs/earley.md, "Compaction").

What the parser can still do after rows[:top] depends on much less than the rows:

- the *incomplete* items of the top row — those that may still advance (completed items
  have done their work: what they completed is in the row already) — and whether the
  row accepts (the one thing a completed item still says);
- for each item that may one day complete, the row it returns to: completing `A` from row
  i advances exactly `rows[i].waiting[A]` — so of row i only the items waiting for such an
  `A` matter, and, recursively, the rows those items return to.

The key is that reachable part, written with three observations, each switchable so that
tests/recognition/test_compaction.py can check each on its own (never changes the allowed bytes or a
later acceptance):

1. **drop** the items that cannot influence what comes next: completed items of the top
   row (but whether it accepts), and in older rows every item not waiting for a symbol
   that may complete there;
2. **renumber** the origins: an item's origin is named by what completing the item's
   left-hand side there gives — the reachable part below it, interned as a number
   (`Returns`) —, not by where the row is in the stack;
3. **Leo**: where completing `A` from row i is deterministic (row i's transitive item,
   earley.py), the key records the transitive item — whose origin is further down — and
   skips the rows in between, as the parser does.

>>> from refimpl.frontends.lark import lark_to_ir
>>> from refimpl.recognition.earley import Parser
>>> g = lark_to_ir('start: "[" item ("," item)* "]"\\nitem: "x" | "[" item "]"').compile()
>>> def key(text):  # the compacted key after these lexemes (one character each)
...     p, top = Parser(g), 1
...     for c in text:
...         top = p.push(top, 1 << next(i for i, lx in enumerate(g.lexemes) if lx.name == '"%s"' % c))
...     return Compaction(p).key(top)
>>> key("[x,x,") == key("[x,x,x,x,")    # the same continuations
True
>>> key("[x,x,") == key("[[x],x,")      # an item was nested
True
>>> key("[x,x,") == key("[x,[")         # two "]" to come
False

The part reachable from "complete A from row i" depends only on rows[:i+1], and a row
stands on the same rows below it for as long as it lives (it is built once, over them,
and reused only on them: earley.py). So it is computed once per (row, symbol) and kept
beside the row, for as long as the row is rows[i] (`Compaction`'s memo column): a key
costs the top row's items and the parts no key asked for before — not a walk down the
stack, however deep the nesting.
"""
from __future__ import annotations

import threading
from typing import Dict, List, Tuple

from ..grammar.ir import COMPLETE, CompiledGrammar
from .earley import Parser, Row

#: an item's origin is the row the key (or part) is of: its returns are that row's items
HERE = -1
#: Returns keeps at most this many parts; then it starts afresh (numbers are never reused,
#: so a part numbered before only misses its equal numbered after: a cache miss, no error)
MAX_PARTS = 1 << 16
_CREATING = threading.Lock()


class Returns:
    """The grammar's numbering of reachable parts, shared by all its parsers (so keys
    mean the same in every Matcher of the grammar, as the mask cache needs); thread-safe.

    A part: what completing a symbol from a row gives, for every symbol that completing
    reaches within that row: (symbol, by Leo?, the items given, each as (dotted rule,
    its origin's part, or HERE for the row itself — its index, without renumbering))."""

    def __init__(self) -> None:
        self._ids: Dict[Tuple[object, ...], int] = {}
        self._next = 0
        self._lock = threading.Lock()

    @classmethod
    def of(cls, g: CompiledGrammar) -> "Returns":
        got = g.shared.get("returns")
        if not isinstance(got, Returns):
            with _CREATING:
                got = g.shared.get("returns")
                if not isinstance(got, Returns):
                    got = g.shared["returns"] = cls()
        return got

    def number(self, part: Tuple[object, ...]) -> int:
        with self._lock:
            n = self._ids.get(part)
            if n is None:
                if len(self._ids) >= MAX_PARTS:
                    self._ids = {}
                n = self._ids[part] = self._next
                self._next += 1
            return n


class Compaction:
    """Compacted keys of one parser's states. Beside the parser's rows it keeps a column
    of memos: memos[i] holds the parts numbered for rows[i], as long as rows[i] is the
    same row (a row pushed there in its place starts a memo of its own)."""

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.returns = Returns.of(parser.g)
        self._memos: List[Tuple[Row, Dict[object, int]]] = []

    def key(self, top: int, drop: bool = True, renumber: bool = True, leo: bool = True) -> Tuple[object, ...]:
        """The compacted key of rows[:top] (hashable). Equal keys: the same continuations."""
        parser = self.parser
        g, rows, shift, mask = parser.g, parser.rows, parser.shift, parser.mask
        j = top - 1
        variant = (drop, renumber, leo and parser.leo)
        head = [x for x in rows[j].items if not drop or g.dot_symbol[x & mask] != COMPLETE]
        here = HERE if renumber else j
        items = []
        for x in head:
            o = x >> shift
            items.append((x & mask, here if o == j else self._part(o, g.lhs[x & mask], variant)))
        items.sort()
        return (rows[j].accepting, tuple(items))

    def _part(self, i: int, symbol: int, variant: Tuple[bool, bool, bool]) -> int:
        """The number of the part reachable from completing `symbol` from row i (< top - 1),
        kept in the memo column; the parts below it first, by an explicit stack (no
        recursion on the nesting of the input)."""
        parser = self.parser
        g, rows, shift, mask = parser.g, parser.rows, parser.shift, parser.mask
        memo_of = self._memo
        stack = [(i, symbol)]
        while stack:
            i, symbol = stack[-1]
            memo = memo_of(i)
            if (symbol, variant) in memo:
                stack.pop()
                continue
            entries = _reached(parser, rows[i], i, symbol, variant)
            below = [(y >> shift, g.lhs[y & mask]) for _, _, gives in entries for y in gives
                     if y >> shift != i and (g.lhs[y & mask], variant) not in memo_of(y >> shift)]
            if below:
                stack.extend(below)
                continue
            here = HERE if variant[1] else i
            part = []
            for s, by_leo, gives in entries:
                refs = sorted((y & mask, here if y >> shift == i else memo_of(y >> shift)[(g.lhs[y & mask], variant)])
                              for y in gives)
                part.append((s, by_leo, tuple(refs)))
            part.sort()
            memo[(symbol, variant)] = self.returns.number(tuple(part) if variant[1] else (i, tuple(part)))
            stack.pop()
        return memo_of(i)[(symbol, variant)]

    def _memo(self, i: int) -> Dict[object, int]:
        """The parts of rows[i] numbered so far, by (symbol, variant)."""
        rows, memos = self.parser.rows, self._memos
        while len(memos) <= i:
            memos.append((rows[len(memos)], {}))
        row = rows[i]
        if memos[i][0] is not row:
            memos[i] = (row, {})
        return memos[i][1]


def _reached(parser: Parser, row: Row, i: int, symbol: int,
             variant: Tuple[bool, bool, bool]) -> List[Tuple[int, bool, Tuple[int, ...]]]:
    """What completing `symbol` from row i gives, and completing what that gives with
    origin i does, and so on within the row: (symbol, by Leo?, items given) each; without
    dropping, also every item of the row (symbol -1)."""
    drop, _, use_leo = variant
    g, shift, mask = parser.g, parser.shift, parser.mask
    symbols, seen, out = [symbol], {symbol}, []
    for s in symbols:  # grows
        transitive = parser.transitive_item(i, s) if use_leo else None
        if transitive is not None:  # 3: one completed item, from further down
            gives: Tuple[int, ...] = (transitive,)
        else:
            gives = tuple(w + 1 for w in row.waiting.get(s, ()))
        out.append((s, transitive is not None, gives))
        follow = gives
        if not drop and s == symbol:
            out.append((-1, False, tuple(row.items)))
            follow = gives + tuple(row.items)
        for y in follow:
            lhs = g.lhs[y & mask]
            if y >> shift == i and lhs not in seen:
                seen.add(lhs)
                symbols.append(lhs)
    return out
