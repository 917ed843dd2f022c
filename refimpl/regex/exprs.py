"""Hash-consed regular expressions over bytes, built by smart constructors.

An `ExprSet` owns every expression it has built; an expression is a small int (its id).
Nodes are hash-consed: building the same node twice gives the same id, and the smart
constructors put every node in a normal form first (the rules are listed beside their
code), so that expressions equal up to those rules are the *same int*. That is what keeps
Brzozowski's derivative automaton finite and small (Brzozowski 1964, Owens, Reppy & Turon
2009, "Regular-expression derivatives re-examined", section 4.1: similarity up to
associativity, commutativity and idempotence of `|` suffices for finiteness).

Node kinds (the tuple stored for each id):

    (NOTHING,)              ∅, no word at all                       id 0
    (EPSILON,)              ε, the empty word                       id 1
    (NOT, 0)                Σ*, every byte string (¬∅)              id 2
    (BYTES, mask)           one byte b with bit b of the 256-bit int `mask` set
    (CONCAT, head, tail)    head·tail; head is never a CONCAT (right-associated)
    (OR, (e1, e2, ...))     alternation; >= 2 members, sorted by id, no OR among them
    (AND, (e1, e2, ...))    intersection; same shape as OR
    (NOT, e)                complement Σ* minus L(e)
    (REPEAT, e, lo, hi)     e{lo,hi}; hi is None for unbounded

An ExprSet holds what hash-consing needs and nothing else: the nodes, the map from a
node to its id, and two flags of each node, computed from its children's when it is
built and stored beside it (a bytearray each, indexed by id):

* ν, `nullable` (Brzozowski's notation: does the language contain ε?). It is part of
  building a node, not a question asked later: the normal forms read it (ε|r = r when
  ν(r); ε&r is ε or ∅; a nullable body lowers a repetition's minimum to 0), so every
  node's ν must exist before any node above it is built;
* `has_boolean`: does the expression contain & or ¬? Only then can a node other than ∅
  denote the empty language, which spares every emptiness question a search.

Every other question asked about expressions is answered by a function of its own module
(`derivative`, `byte_classes`, `is_empty`, ...), which keeps its answers in a cache of its
own, one per ExprSet: the dict `es.caches[f]`, keyed by that function f ("one cache per
question", as in derivre). This module knows none of them; `Caches` makes each, empty, on
first use.  A cache is keyed by expression ids, so it lives exactly as long as the
ExprSet, and is shared by all that share it (every Matcher of a grammar;
docs/architecture.md, "What a grammar shares, and threads").

The derivative lives in derivative.py and printing in printer.py; both build on this
module, which imports neither. Code outside the regex engine reads nodes through
`ExprSet.node` (a named view), never by position.
"""
from __future__ import annotations

import threading
from bisect import bisect_left
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..errors import LimitError
from ..limits import DEFAULT_LIMITS, Limits

NOTHING_KIND, EPSILON_KIND, BYTES, CONCAT, OR, AND, NOT, REPEAT = range(8)

ALL_BYTES = (1 << 256) - 1
"""The set of all 256 bytes. A set of bytes is a 256-bit int, bit b set for byte b: the
`mask` of a BYTES node, of the syntax tree's `ByteClass`, of a byte class."""

Node = tuple


def byte_mask(lo: int, hi: int) -> int:
    """The set of the bytes lo..hi (inclusive), as a mask."""
    return ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)


class NodeView(NamedTuple):
    """A read-only view of one expression node, for code outside the regex engine.

    `kind` is one of the kind constants; `children` the sub-expressions (concatenation:
    head and tail; alternation and intersection: the members; complement and repeat:
    the operand); `mask` the byte set of a BYTES node; `lo`, `hi` the bounds of a REPEAT.
    """

    kind: int
    children: Tuple[int, ...]
    mask: int = 0
    lo: int = 0
    hi: Optional[int] = None


class Caches(Dict[Callable[..., Any], Dict[Any, Any]]):
    """The caches of one ExprSet, one per question: `es.caches[f]` is the dict of the
    answers of the function f about these expressions, made empty on first use. Hot loops
    read a cache inline and call f only on a miss.

    Threads: two threads that both miss make one dict each, and `setdefault` keeps the
    first, so both use the same one; within a cache, an answer may be computed twice, never
    differently (answers are functions of the expressions, which never change).

    >>> caches = Caches()
    >>> caches[len] is caches[len], caches[len]
    (True, {})
    """

    __slots__ = ()

    def __missing__(self, question: Callable[..., Any]) -> Dict[Any, Any]:
        return self.setdefault(question, {})


class ExprSet:
    """A store of hash-consed expressions; an expression is an int id into it.

    >>> es = ExprSet()
    >>> ab = es.union(es.literal(b"a"), es.literal(b"b"))
    >>> ab == es.byte_set(0b11 << ord("a"))         # a|b is the byte set [ab]
    True
    >>> es.concat(ab, es.EPSILON) == ab            # ε is the identity of concatenation
    True
    >>> es.concat(ab, es.NOTHING) == es.NOTHING    # ∅ annihilates it
    True
    """

    NOTHING = 0
    EPSILON = 1
    EVERYTHING = 2

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        #: held while a node is added (lookups take no lock: the node list only grows,
        #: and a node's id is published in `_ids` after the node is complete)
        self._lock = threading.Lock()
        self.nodes: List[Node] = []
        self._ids: Dict[Node, int] = {}
        #: ν of each expression, 1 or 0 (`nullable` reads it; hot loops index it)
        self.nullable_flags = bytearray()
        #: 1 where the expression contains AND or NOT: only then can a node other than ∅
        #: denote the empty language, so only then is an emptiness check needed.
        self.has_boolean = bytearray()
        #: the answers of the other modules' functions, one cache per function (see Caches)
        self.caches = Caches()
        assert self._make((NOTHING_KIND,)) == self.NOTHING
        assert self._make((EPSILON_KIND,)) == self.EPSILON
        assert self._make((NOT, self.NOTHING)) == self.EVERYTHING

    # -- the store ---------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.nodes)

    def kind(self, e: int) -> int:
        return self.nodes[e][0]

    def nullable(self, e: int) -> bool:
        """ν(e): does L(e) contain the empty word?"""
        return self.nullable_flags[e] == 1

    def _make(self, node: Node, flags: Optional[Tuple[int, int]] = None) -> int:
        """The id of `node`, added if new; `flags` = (ν, has_boolean) when already known."""
        e = self._ids.get(node)
        if e is not None:
            return e
        with self._lock:  # Matchers of one grammar share its ExprSet, maybe across threads
            return self._add(node, flags)

    def _add(self, node: Node, flags: Optional[Tuple[int, int]]) -> int:
        e = self._ids.get(node)  # another thread may have added it meanwhile
        if e is not None:
            return e
        e = len(self.nodes)
        if e >= self.limits.expressions:
            raise LimitError("expressions", self.limits.expressions, "regex expressions built")
        kind = node[0]
        if flags is not None:
            self.nullable_flags.append(flags[0])
            self.has_boolean.append(flags[1])
            self.nodes.append(node)
            self._ids[node] = e  # published last, complete
            return e
        # ν, by the usual rules: ν(ε)=1, ν(∅)=ν(b)=0, ν(rs)=ν(r)ν(s), ν(r|s)=ν(r)+ν(s),
        # ν(r&s)=ν(r)ν(s), ν(¬r)=1-ν(r), ν(r{lo,hi}) = (lo == 0 or ν(r)).
        n = self.nullable_flags
        if kind == EPSILON_KIND:
            nul, boolean = 1, 0
        elif kind in (NOTHING_KIND, BYTES):
            nul, boolean = 0, 0
        elif kind == CONCAT:
            nul = n[node[1]] & n[node[2]]
            boolean = self.has_boolean[node[1]] | self.has_boolean[node[2]]
        elif kind == OR:
            nul = 1 if any(n[c] for c in node[1]) else 0
            boolean = 1 if any(self.has_boolean[c] for c in node[1]) else 0
        elif kind == AND:
            nul = 1 if all(n[c] for c in node[1]) else 0
            boolean = 1
        elif kind == NOT:
            nul, boolean = 1 - n[node[1]], 1
        else:  # REPEAT
            nul = 1 if node[2] == 0 or n[node[1]] else 0
            boolean = self.has_boolean[node[1]]
        n.append(nul)
        self.has_boolean.append(boolean)
        self.nodes.append(node)
        self._ids[node] = e  # published last, complete
        return e

    # -- smart constructors ---------------------------------------------------------------

    def byte_set(self, mask: int) -> int:
        """One byte out of `mask` (bit b set = byte b allowed). The empty set is ∅."""
        if not 0 <= mask <= ALL_BYTES:
            raise ValueError("byte mask out of range")
        if mask == 0:
            return self.NOTHING
        return self._make((BYTES, mask))

    def byte_range(self, lo: int, hi: int) -> int:
        """One byte in lo..hi (inclusive)."""
        if not 0 <= lo <= hi <= 255:
            raise ValueError("bad byte range %d-%d" % (lo, hi))
        return self.byte_set(byte_mask(lo, hi))

    def literal(self, data: bytes) -> int:
        """The one-word language {data}."""
        return self.concat(*[self.byte_set(1 << b) for b in data])

    def concat(self, *exprs: int) -> int:
        """e1·e2·...·en, right-associated.

        Rules: ∅ annihilates (r∅ = ∅r = ∅); ε is the identity (rε = εr = r);
        (rs)t = r(st), so a CONCAT's head is never a CONCAT; r*r* = r* where two equal
        stars meet, which keeps `.*.*`-like states from piling up.
        """
        if self.NOTHING in exprs:
            return self.NOTHING
        nodes = self.nodes
        result = self.EPSILON
        # The last factor is already right-associated and is kept as it is (so that
        # d(r·s) = d(r)·s costs O(|d(r)|), not O(|s|)); the others are flattened onto it.
        for e in reversed(exprs):
            if result == self.EPSILON:
                result = e
                continue
            factors = []
            while nodes[e][0] == CONCAT:  # flatten: (rs)t -> r(st)
                factors.append(nodes[e][1])
                e = nodes[e][2]
            if e != self.EPSILON:
                factors.append(e)
            for f in reversed(factors):
                head = result if nodes[result][0] != CONCAT else nodes[result][1]
                if head == f and self._is_star(f):  # r*r* = r*
                    continue
                result = self._make((CONCAT, f, result))
        return result

    def _is_star(self, e: int) -> bool:
        node = self.nodes[e]
        return e == self.EVERYTHING or (node[0] == REPEAT and node[2] == 0 and node[3] is None)

    def union(self, *exprs: int) -> int:
        """e1|e2|...|en.

        Rules: flatten nested alternations (associativity); drop ∅ (identity); sort and
        deduplicate members (commutativity, idempotence); merge all byte sets into one
        byte set ([a]|[b] = [ab]); Σ* absorbs everything (Σ*|r = Σ*); drop ε when another
        member is already nullable (ε|r* = r*).
        """
        nodes = self.nodes
        if len(exprs) == 2:
            a, b = exprs
            if nodes[a][0] == OR and nodes[b][0] not in (OR, BYTES):
                return self._insert(a, b)
            if nodes[b][0] == OR and nodes[a][0] not in (OR, BYTES):
                return self._insert(b, a)
        members = self._union_members(exprs)
        if members is None:
            return self.EVERYTHING
        if self.EPSILON in members and len(members) > 1:
            if any(self.nullable_flags[c] for c in members if c != self.EPSILON):
                members.discard(self.EPSILON)
        if not members:
            return self.NOTHING
        if len(members) == 1:
            return members.pop()
        return self._make((OR, tuple(sorted(members))))

    def _union_members(self, exprs: Tuple[int, ...]) -> Optional[Set[int]]:
        """The members of a union: nested alternations flattened, ∅ dropped, byte sets merged
        into one; None if Σ* is among them."""
        nodes = self.nodes
        members: Set[int] = set()
        mask = 0
        for e in exprs:
            node = nodes[e]
            kind = node[0]
            if kind == OR:
                for c in node[1]:
                    if nodes[c][0] == BYTES:
                        mask |= nodes[c][1]
                    else:
                        members.add(c)
            elif kind == BYTES:
                mask |= node[1]
            elif e == self.EVERYTHING:
                return None
            elif e != self.NOTHING:
                members.add(e)
        if mask:
            members.add(self.byte_set(mask))
        return members

    def _insert(self, alternation: int, e: int) -> int:
        """union(alternation, e) for a single non-byte-set e, in one pass over the members
        (building long alternations one member at a time stays O(n) per step, in C)."""
        members = self.nodes[alternation][1]
        if e == self.NOTHING:
            return alternation
        if e == self.EVERYTHING:
            return e
        i = bisect_left(members, e)
        if i < len(members) and members[i] == e:
            return alternation
        if e == self.EPSILON and self.nullable_flags[alternation]:
            return alternation
        if self.nullable_flags[e] and members[0] == self.EPSILON:  # ε has the smallest id
            members = members[1:]
            i -= 1
        flags = (
            self.nullable_flags[alternation] | self.nullable_flags[e],
            self.has_boolean[alternation] | self.has_boolean[e],
        )
        return self._make((OR, members[:i] + (e,) + members[i:]), flags)

    def intersection(self, *exprs: int) -> int:
        """e1&e2&...&en.

        Rules: flatten; ∅ annihilates (r&∅ = ∅); Σ* is the identity (r&Σ* = r); sort and
        deduplicate; byte sets intersect into one ([ab]&[bc] = [b], and ∅ if disjoint);
        ε&r is ε if ν(r) else ∅; r&¬r = ∅. With no members left the result is Σ*.
        """
        members: Set[int] = set()
        mask = ALL_BYTES
        has_bytes = False
        nodes = self.nodes
        for e in exprs:
            node = nodes[e]
            kind = node[0]
            if e == self.NOTHING:
                return self.NOTHING
            if kind == AND:
                todo: Iterable[int] = node[1]
            else:
                todo = (e,)
            for c in todo:
                if nodes[c][0] == BYTES:
                    mask &= nodes[c][1]
                    has_bytes = True
                elif c != self.EVERYTHING:
                    members.add(c)
        if has_bytes:
            if mask == 0:
                return self.NOTHING
            members.add(self.byte_set(mask))
        if self.EPSILON in members:
            return self.EPSILON if all(self.nullable_flags[c] for c in members) else self.NOTHING
        for c in members:
            node = nodes[c]
            if node[0] == NOT and node[1] in members:
                return self.NOTHING
        if not members:
            return self.EVERYTHING
        if len(members) == 1:
            return members.pop()
        return self._make((AND, tuple(sorted(members))))

    def complement(self, e: int) -> int:
        """¬e, every byte string not in L(e). Rule: ¬¬r = r (so ¬Σ* = ∅)."""
        node = self.nodes[e]
        if node[0] == NOT:
            return node[1]
        return self._make((NOT, e))

    def repeat(self, e: int, lo: int, hi: Optional[int] = None) -> int:
        """e{lo,hi}; `hi` None means unbounded.

        Rules: r{0,0} = ε; ∅{0,..} = ε and ∅{lo,..} = ∅ for lo > 0; ε{lo,hi} = ε;
        if ν(r) the minimum drops to 0 (pad with empty copies): r{lo,hi} = r{0,hi};
        r{1,1} = r; r{0,1} = r|ε (so `r?` and `(r|)` are the same node);
        (r*){0,hi} = r* for hi >= 1; (r+)* = r*, and more generally (r+){lo,} = r{lo,};
        [\\x00-\\xff]* = Σ*.
        """
        if lo < 0 or (hi is not None and hi < lo):
            raise ValueError("bad repetition bounds {%r,%r}" % (lo, hi))
        if hi == 0 or e == self.EPSILON:
            return self.EPSILON
        if e == self.NOTHING:
            return self.EPSILON if lo == 0 else self.NOTHING
        if self.nullable_flags[e]:
            lo = 0
        if lo == 1 and hi == 1:
            return e
        if lo == 0 and hi == 1:
            return self.union(e, self.EPSILON)
        node = self.nodes[e]
        if self._is_star(e):
            return e
        if hi is None and node[0] == REPEAT and node[2] == 1 and node[3] is None:
            return self.repeat(node[1], lo, None)
        if hi is None and lo == 0 and node == (BYTES, ALL_BYTES):
            return self.EVERYTHING
        return self._make((REPEAT, e, lo, hi))

    def star(self, e: int) -> int:
        return self.repeat(e, 0, None)

    def plus(self, e: int) -> int:
        return self.repeat(e, 1, None)

    def optional(self, e: int) -> int:
        return self.repeat(e, 0, 1)

    def words(self, sequences: Iterable[Sequence[int]]) -> int:
        """The union of the sequences of byte sets (masks), built as a trie (`factored`,
        each sequence followed by ε).

        Sequences that share leading byte sets share one path, and sibling byte sets
        followed by the same rest (the same expression, by hash-consing) merge into one
        byte set: `[\\xC3][\\x80-\\xBF] | [\\xC4][\\x80-\\xBF]` = `[\\xC3\\xC4][\\x80-\\xBF]`.
        So a 100,000-word enum, or the UTF-8 encodings of a Unicode class, stay small.

        A literal word w is the sequence `[1 << b for b in w]`:

        >>> es = ExprSet()
        >>> a_or_c = es.byte_set(1 << ord("a") | 1 << ord("c"))
        >>> es.words([[1 << b for b in w] for w in (b"ab", b"cb")]) == es.concat(a_or_c, es.literal(b"b"))
        True
        """
        return self.factored((seq, self.EPSILON) for seq in sequences)

    def factored(self, alternatives: Iterable[Tuple[Sequence[int], int]]) -> int:
        """The union of the alternatives masks·rest (a sequence of byte sets, then any
        expression), left-factored: built as a trie of the byte sets, the rests at its
        ends. The language is the union's; only the shape differs: `ab|ac|d` is
        `a[bc]|d`, so a derivative of a 20,000-word alternation looks at the few branches
        of one trie node, not at 20,000 members (regex/factoring.py). Built bottom-up
        with an explicit stack (a long word is no problem).

        >>> es = ExprSet()
        >>> def word(w): return [1 << b for b in w]
        >>> e = es.factored([(word(b"ab"), es.EPSILON), (word(b"ac"), es.EPSILON), ([], es.literal(b"d"))])
        >>> e == es.union(es.concat(es.literal(b"a"), es.byte_set(0b11 << ord("b"))), es.literal(b"d"))
        True
        """
        root: Dict[int, dict] = {}
        # keys of a trie node: a byte set (>= 1) leads to a child; -1 - rest (<= -1) ends
        # an alternative there with that rest expression (ε for a word)
        for seq, rest in alternatives:
            if rest == self.NOTHING:
                continue
            node = root
            for mask in seq:
                node = node.setdefault(mask, {})
            node[-1 - rest] = {}
        done: Dict[int, int] = {}  # id(trie node) -> expression; the trie keeps them alive
        stack: List[Tuple[Dict[int, dict], bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if not ready:
                stack.append((node, True))
                stack.extend((child, False) for key, child in node.items() if key > 0)
                continue
            by_rest: Dict[int, int] = {}  # rest expression -> mask of the leading bytes
            ends: List[int] = []
            for key, child in node.items():
                if key > 0:
                    rest = done[id(child)]
                    by_rest[rest] = by_rest.get(rest, 0) | key
                else:
                    ends.append(-1 - key)
            branches = [self.concat(self.byte_set(mask), rest) for rest, mask in by_rest.items()]
            done[id(node)] = self.union(*branches, *ends)
        return done[id(root)]

    # -- reading expressions ----------------------------------------------------------------

    def node(self, e: int) -> NodeView:
        """The node of e as a named view (see NodeView)."""
        node = self.nodes[e]
        kind = node[0]
        if kind == BYTES:
            return NodeView(kind, (), mask=node[1])
        if kind == REPEAT:
            return NodeView(kind, (node[1],), lo=node[2], hi=node[3])
        return NodeView(kind, self.children(e))

    def reachable(self, e: int) -> List[int]:
        """Every expression reachable from e, once each, children before parents.

        A node is built after its children, so a child's id is always smaller than its
        parent's: sorted by id, the reachable set is a bottom-up order (a pass over it
        sees every child's result before its parent needs it).
        """
        seen = {e}
        stack = [e]
        while stack:
            for c in self.children(stack.pop()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return sorted(seen)

    def copy(self, source: "ExprSet", e: int) -> int:
        """The expression e of another ExprSet, built in this one, node by node, children
        first. A node of `source` is in normal form, and the normal form depends on ids
        only in the order of OR and AND members (sorted by id; ∅, ε and Σ* have the same
        ids in every set): so each node is added as it is, its children renamed and its
        members sorted again, with its flags — no smart constructor is asked again.
        What was built once in an ExprSet of its own serves every other set this way: a
        Unicode class's trie of UTF-8 sequences (compiler.compile_class) is copied in a few
        hundred steps instead of built again from thousands of sequences.

        >>> a, b = ExprSet(), ExprSet()
        >>> b.literal(b"x") > 2    # b's ids differ from a's
        True
        >>> e = a.concat(a.plus(a.byte_range(ord("a"), ord("z"))), a.literal(b"!"))
        >>> b.copy(a, e) == b.concat(b.plus(b.byte_range(ord("a"), ord("z"))), b.literal(b"!"))
        True
        """
        built: Dict[int, int] = {self.NOTHING: self.NOTHING, self.EPSILON: self.EPSILON,
                                 self.EVERYTHING: self.EVERYTHING}
        nodes, nullable, boolean = source.nodes, source.nullable_flags, source.has_boolean
        for x in source.reachable(e):
            if x in built:
                continue
            node = nodes[x]
            kind = node[0]
            if kind == CONCAT:
                node = (CONCAT, built[node[1]], built[node[2]])
            elif kind == OR or kind == AND:
                node = (kind, tuple(sorted(built[c] for c in node[1])))
            elif kind == NOT:
                node = (NOT, built[node[1]])
            elif kind == REPEAT:
                node = (REPEAT, built[node[1]], node[2], node[3])
            built[x] = self._make(node, (nullable[x], boolean[x]))
        return built[e]

    def size(self, e: int) -> int:
        """The number of distinct nodes reachable from e (a measure of expression size)."""
        return len(self.reachable(e))

    def children(self, e: int) -> Tuple[int, ...]:
        node = self.nodes[e]
        kind = node[0]
        if kind == CONCAT:
            return (node[1], node[2])
        if kind in (OR, AND):
            return node[1]
        if kind in (NOT, REPEAT):
            return (node[1],)
        return ()
