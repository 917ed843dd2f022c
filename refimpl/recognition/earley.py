"""Earley's parser over lexemes, with Leo items, and rows that push, pop and are reused.

Notation (Earley 1970; Aycock & Horspool 2002; Leo 1991). An *item* [A → α • β, i] is a
rule with a dot and the row i where it started (its origin). Row j holds the items that
are possible after j lexemes. An item is one int: the dot position in the grammar's flat
right-hand-side list (CompiledGrammar) in the low bits, the origin above them; advancing
the dot is `item + 1`.

Building row j from the items its lexeme advanced (the *scan*) runs to a fixpoint:

  predict   [A → α • B β, i]  adds [B → • γ, j] for every rule B → γ;
            and if B is nullable, also [A → α B • β, i]        (Aycock–Horspool: this
            replaces completing ε-derivations, so items with origin j are never completed)
  complete  [B → γ •, k] with k < j: every [A → α • B β, i] in row k gives
            [A → α B • β, i] — unless a Leo item short-cuts the chain (below)
  scan      (when the next lexeme arrives) [A → α • a β, i] with a among the lexemes
            gives [A → α a • β, i] in row j + 1

Leo items. Right recursion (S → a S | ε) makes plain Earley add one completed item per
level, so row n holds O(n) items. Leo: if row k holds exactly one item with B after the
dot, [A → α • B, i], and advancing it completes A, then completing B from k leads
deterministically to completing A from i; follow that path to its top and add only the
topmost completed item. The path's top is memoised per (row, symbol) as the *transitive
item* of that row. Two details are load-bearing (docs/earley.md): transitive items are
computed only for finished rows (k < j, never the row being built), and the grammar has
an augmented start rule S' → S, so the accepting item is always the top of a path.

Rows form a stack, and a parser state is a value: `top`, the number of live rows
(rows[:top]). `push(top, lexemes)` builds the row after rows[:top] — or reuses the row
built before from the same parent row for the same lexemes (each row caches its
children): the trie walk pushes the same lexeme for many tokens — places it at rows[top]
and returns the new top. Nothing else moves: popping is going back to a smaller top. A
state stays valid while the rows under it stay, so pushing at `top` invalidates only the
states above `top` (the walk's own, which it leaves before pushing there again).

The rows are a tree: a row is built from its parent and the rows under the parent, so it
depends only on the lexemes scanned from row 0 — not on which parser built it. The parsers
of one grammar therefore share one tree (`RowTree`): a fresh parser starts at the tree's
row 0 and reuses every row a parser of the grammar built before on the same lexemes — the
rows of a new request's first mask, as a rule. The tree is shared until it holds
`SHARED_ITEMS` items; then new parsers start a new tree, and the parsers still on the full
one drop their committed rows' children again (`forget_children`), so memory stays
bounded however many requests and however long a generation.

>>> from refimpl.frontends.lark import lark_to_ir
>>> g = lark_to_ir('start: "a" "b"').compile()
>>> p = Parser(g)
>>> a, b = (1 << next(i for i, lx in enumerate(g.lexemes) if lx.name == '"%s"' % c) for c in "ab")
>>> top = p.push(1, a); top, p.push(top, b), p.push(top, a), p.rows[p.push(top, b) - 1].accepting
(2, 3, 0, True)
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, Generic, List, Optional, Tuple, Type, TypeVar

from ..errors import LimitError
from ..grammar.ir import COMPLETE, CompiledGrammar
from ..limits import DEFAULT_LIMITS, Limits


class Row:
    """One Earley set: its items, what it waits for, and what the lexer may see next.
    (accel/_native.c's `row_new` makes LexedRows as these two __init__ do, and the C walk
    reads and writes the fields at their slots' offsets: change both.)"""

    __slots__ = ("items", "waiting", "allowed", "accepting", "leo", "children")

    def __init__(self, items: List[int]) -> None:
        self.items = items
        self.waiting: Dict[int, List[int]] = {}  # symbol after the dot -> items
        self.allowed = 0  # bit mask of the lexemes that may come next
        self.accepting = False  # holds [S' → S •, 0]
        self.leo: Dict[int, Optional[int]] = {}  # symbol -> transitive item (or None)
        self.children: Dict[int, Row] = {}  # scanned lexemes (bit mask) -> the row built


R = TypeVar("R", bound=Row)

#: a tree of rows is shared by new parsers until it holds this many items in all
SHARED_ITEMS = 1 << 17
_CREATING = threading.Lock()


class RowTree:
    """The rows built so far by the parsers of one grammar (with the same row limits, Leo
    setting and row class), from their common row 0; shared until `full`."""

    def __init__(self, root: Row) -> None:
        self.root = root
        self.items = len(root.items)  # in every row built in the tree (a count, not exact under threads)
        self.full = False

    @classmethod
    def of(cls, grammar: CompiledGrammar, key: Tuple[object, ...], build: Callable[[], Row]) -> "RowTree":
        """The grammar's tree for `key` that is not full, made with row 0 `build()` if none."""
        trees = grammar.shared.setdefault("row_trees", {})
        assert isinstance(trees, dict)
        tree = trees.get(key)
        if tree is None or tree.full:
            with _CREATING:
                tree = trees.get(key)
                if tree is None or tree.full:
                    tree = trees[key] = cls(build())
        return tree

    def grown(self, row: Row) -> None:
        """Count a row added to the tree; the tree is full past SHARED_ITEMS."""
        self.items += len(row.items)
        if self.items > SHARED_ITEMS:
            self.full = True


class Parser(Generic[R]):
    """The rows of one parse and the grammar they are over; states are tops (ints).
    `row` is the class of the rows it builds: Row, or a subclass by which a reader of the
    rows keeps what it derives from each (the recogniser's lexer start: recognizer.py)."""

    def __init__(self, grammar: CompiledGrammar, limits: Limits = DEFAULT_LIMITS, leo: bool = True,
                 row: Type[R] = Row, row_builder: Optional["Closure"] = None) -> None:  # type: ignore[assignment]
        self.g = grammar
        self.limits = limits
        self.leo = leo
        self.row = row
        self.shift = max(1, len(grammar.dot_symbol).bit_length())
        self.mask = (1 << self.shift) - 1
        self.rows: List[R] = []
        self.rows_built = 0
        self.rows_reused = 0
        accept_pos = grammar.rules_of[grammar.start][0] + 1
        self.accept_item = accept_pos  # [S' → S •, 0]
        #: what `closure` reads of the grammar and the parser, in one tuple
        self.tables: Tables = (grammar.dot_symbol, grammar.lhs, grammar.rules_of, grammar.nullable,
                               grammar.n_nonterminals, self.shift, self.mask, limits.items_per_row,
                               accept_pos)
        #: a faster equal of `closure` with its arguments and answers, or None: the native
        #: backend's (accel/_native.c), which answers None for what it leaves to `closure`
        self.row_builder = row_builder
        seeds = [p for p in grammar.rules_of[grammar.start]]
        key = (limits.rows, limits.items_per_row, leo, row)
        self.tree = RowTree.of(grammar, key, lambda: self._build(0, seeds))
        if not self.rows_built:  # another parser built row 0
            self.rows_reused += 1
        self.rows.append(self.tree.root)  # type: ignore[arg-type]  # a root this key's parsers built

    # -- the stack of rows ----------------------------------------------------------------

    def push(self, top: int, lexemes: int) -> int:
        """Scan one lexeme out of the bit mask `lexemes` after rows[:top]: the row built
        (or reused) is placed at rows[top]; returns the new top, top + 1.

        Returns 0 (and places nothing) when no item of rows[top - 1] expects any of them.
        A row built before from the same parent row for the same lexemes is reused.
        """
        parent = self.rows[top - 1]
        row: Optional[R] = parent.children.get(lexemes)  # type: ignore[assignment]  # a child is a row this parser built
        if row is not None:
            self.rows_reused += 1
        else:
            seeds = self.seeds(parent, lexemes)
            if not seeds:
                return 0
            self._check_rows(top)
            row = parent.children[lexemes] = self._build(top, seeds)
            self.tree.grown(row)
        return self._place(top, row)

    def seeds(self, parent: Row, lexemes: int) -> List[int]:
        """The items of `parent` that scanning one of `lexemes` (a bit mask) advances,
        advanced: the seeds of the row after it, by lexeme, then in the parent's order."""
        n, waiting = self.g.n_nonterminals, parent.waiting
        if lexemes and not lexemes & (lexemes - 1):  # one lexeme: the common case, without _bits
            return [item + 1 for item in waiting.get(n + lexemes.bit_length() - 1, ())]
        seeds: List[int] = []
        for lexeme in _bits(lexemes):
            seeds.extend(item + 1 for item in waiting.get(n + lexeme, ()))
        return seeds

    def push_copy(self, top: int, skips: int) -> int:
        """Place a copy of rows[top - 1] at rows[top]: an %ignore matched once (the bit mask
        `skips`) was scanned, so the items stay (the recogniser's lexer starts after the
        copy without the skip). llguidance pushes such a row too. Reused like `push`'s
        rows; returns the new top.

        The copy, at index top, holds the items of the row below with their origins; it
        predicts nothing, so no item has origin `top` and no completion or Leo item ever
        reads it.
        """
        parent = self.rows[top - 1]
        row: Optional[R] = parent.children.get(skips)  # type: ignore[assignment]
        if row is not None:
            self.rows_reused += 1
        else:
            self._check_rows(top)
            row = parent.children[skips] = self.row(parent.items)
            row.waiting, row.allowed, row.accepting = parent.waiting, parent.allowed, parent.accepting
            self.rows_built += 1
            self.tree.grown(row)
        return self._place(top, row)

    def _check_rows(self, j: int) -> None:
        """A new row j may be built only below the `rows` limit."""
        if j >= self.limits.rows:
            raise LimitError("rows", self.limits.rows, "Earley rows (lexemes) in one parse")

    def _place(self, j: int, row: R) -> int:
        """Make `row` row j; the new top, j + 1."""
        if j < len(self.rows):
            self.rows[j] = row
        else:
            self.rows.append(row)
        return j + 1

    def forget_children(self, start: int, stop: int) -> None:
        """Drop the child caches of rows start..stop-1: once input is committed past
        them, this parser's walks no longer push on them (keeps memory flat over long
        generations). While the tree is shared (not full), they stay for the next parsers."""
        if not self.tree.full:
            return
        for j in range(max(0, start), stop):
            self.rows[j].children = {}

    # -- building a row -------------------------------------------------------------------

    def _build(self, j: int, seeds: List[int]) -> R:
        """Row j from its seeds: `closure` (or the parser's faster equal of it, `row_builder`)."""
        transitive = self._transitive if self.leo else None
        built = None
        if self.row_builder is not None:
            built = self.row_builder(self.tables, self.rows, j, seeds, transitive)
        if built is None:
            built = closure(self.tables, self.rows, j, seeds, transitive)
        self.rows_built += 1
        row = self.row(built[0])
        row.waiting, row.allowed, row.accepting = built[1], built[2], built[3]
        return row

    def transitive_item(self, k: int, symbol: int) -> Optional[int]:
        """Finished row k's transitive item for `symbol` (Leo), or None — for readers of
        the rows (compaction.py); memoised like the parser's own."""
        return self._transitive(k, symbol)

    def _transitive(self, k: int, symbol: int) -> Optional[int]:
        """The Leo transitive item of finished row k for `symbol`, or None.

        Defined when row k holds exactly one item with `symbol` after the dot and
        advancing it completes its rule: then it is the transitive item of that rule's
        origin row for its left-hand side, if that one is defined, else the completed
        item itself. Computed iteratively along the path and memoised in each row.
        """
        g = self.g
        path = []
        on_path = set()
        top: Optional[int] = None
        while True:
            row = self.rows[k]
            if symbol in row.leo:
                top = row.leo[symbol]
                break
            waiting = row.waiting.get(symbol, ())
            advanced = waiting[0] + 1 if len(waiting) == 1 else -1
            if advanced < 0 or g.dot_symbol[advanced & self.mask] != COMPLETE or (k, symbol) in on_path:
                if (k, symbol) not in on_path:
                    row.leo[symbol] = None
                top = None
                break
            on_path.add((k, symbol))
            path.append((row, symbol, advanced))
            k, symbol = advanced >> self.shift, g.lhs[advanced & self.mask]
        for row, sym, advanced in reversed(path):
            if top is None:
                top = advanced
            row.leo[sym] = top
        return top

    # -- teaching traces ------------------------------------------------------------------

    def item_to_string(self, item: int, rename: Callable[[str], str] = str) -> str:
        return self.g.item_to_string(item & self.mask, item >> self.shift, rename)

    def row_to_string(self, j: int) -> str:
        row = self.rows[j]
        lines = ["row %d%s" % (j, " (accepting)" if row.accepting else "")]
        lines.extend("  " + self.item_to_string(item) for item in row.items)
        return "\n".join(lines)


#: (dot_symbol, lhs, rules_of, nullable, n_nonterminals, shift, mask, items_per_row,
#: accept_item): the grammar's flat rules (CompiledGrammar) and the parser's item layout
Tables = Tuple[List[int], List[int], List[List[int]], List[bool], int, int, int, int, int]
#: what builds a row: (items, waiting, allowed, accepting), or None (`Parser.row_builder`: left to `closure`)
Built = Tuple[List[int], Dict[int, List[int]], int, bool]
Closure = Callable[[Tables, List[R], int, List[int], Optional[Callable[[int, int], Optional[int]]]],
                   Optional[Built]]


def closure(tables: Tables, rows: List[R], j: int, seeds: List[int],
            transitive: Optional[Callable[[int, int], Optional[int]]]) -> Built:
    """Row j, from its seeds (the items its lexeme advanced), run to the fixpoint of
    predict and complete (the module's docstring) over the finished rows[:j]: its items in
    the order found, what it waits for (symbol after the dot -> items, in that order), the
    lexemes that may come next (a bit mask) and whether it holds the accepting item.
    `transitive(k, symbol)` is the Leo transitive item of row k (None: no Leo items).

    The items are a worklist read while it grows (a list iterator reads what is appended
    during the loop); an item's waiting entry is made when the loop reaches it, so the
    lists keep the items' order. The `items_per_row` limit is checked where an item was
    predicted or completed (a row of seeds alone is never refused).
    """
    dot_symbol, lhs, rules_of, nullable, n, shift, mask, limit, accept_item = tables
    origin_j = j << shift
    items = list(dict.fromkeys(seeds))  # without repeats, in order
    seen = set(items)
    waiting: Dict[int, List[int]] = {}
    predicted = set()
    allowed = 0
    for item in items:
        pos = item & mask
        sym = dot_symbol[pos]
        if sym == COMPLETE:
            origin = item >> shift
            if origin == j:
                continue  # an ε-derivation: already advanced when predicted
            symbol = lhs[pos]
            top = transitive(origin, symbol) if transitive is not None else None
            if top is not None:
                if top not in seen:
                    seen.add(top)
                    items.append(top)
            else:
                for w in rows[origin].waiting.get(symbol, ()):
                    w += 1
                    if w not in seen:
                        seen.add(w)
                        items.append(w)
        else:
            if sym in waiting:
                waiting[sym].append(item)
            else:
                waiting[sym] = [item]
            if sym >= n:
                allowed |= 1 << (sym - n)
                continue
            if sym not in predicted:
                predicted.add(sym)
                for p in rules_of[sym]:
                    p |= origin_j
                    if p not in seen:
                        seen.add(p)
                        items.append(p)
            if nullable[sym] and item + 1 not in seen:
                seen.add(item + 1)
                items.append(item + 1)
        if len(items) > limit:
            raise LimitError("items_per_row", limit, "Earley items in one row")
    return items, waiting, allowed, accept_item in seen


def _bits(mask: int) -> List[int]:
    """The indices of the set bits of `mask`."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out
