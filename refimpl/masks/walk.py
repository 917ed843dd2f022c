"""The mask walk: every token of the trie against the current state, in one pass.

The walk visits the trie in preorder and keeps, per depth d, the state after the first d
bytes of the current node's path: a lexer state and a parser top (how many Earley rows are
live). At node n, with byte b, from its parent's state (s, top):

    all n's subtree reads loops on s    ->  every token in it is allowed: set their bits
      (bytes, or UTF-8 characters; no       from the trie's preorder token list, n = end[n]
      lazy lexeme ends in s; s's loop is    (subtrees.py)
      computed the first time it is asked
      at an inner node: Lexer.loop)
    s' = table[s << 8 | b]             one list index, after warm-up
    s' dead and no lexeme can end in s  ->  refused: skip the subtree, n = end[n]
    s' dead but a lexeme can end in s   ->  it ends before b: the next lexeme starts in
                                            r = restart(s, top) (asked once per s and
                                            stack entry: below); table[r << 8 | b] dead ->
                                            refused; else as the next case
    s' dead (and r reads b), or a lazy
      lexeme ends in s'                 ->  ask the parser: advance(s, top, b) scans the
                                            lexeme (pushing a row, or reusing the row
                                            pushed for the same lexeme before) and
                                            restarts the lexer; dead -> skip the subtree
    otherwise                           ->  s' with the parent's top: n is live, n + 1
    a token ends at n                   ->  its bit is set

Moving to a sibling or an uncle pops the parser rows pushed below: the parser top is a
stack of (depth, top) entries, one per node on the current path where a lexeme ended, and
an entry is dropped when the walk leaves that node's subtree (rows stay cached for reuse).
Each entry also keeps the answers of `restart` for its top (`restarts`): the rows below
the top stay the same while the entry lives, so a lexer state's restart is too. Most
nodes where a lexeme ends are refused by the next lexeme's first byte (after `{"a": 1, `
every token but those starting with `"`, `}` or whitespace), by two table reads and no
call of the parser. The parser is involved at well under 1% of nodes.

Nodes with many children (MANY or more; the root has up to 256) are where most of a
small mask's nodes are refused, one by one, so there the walk does three things more:

* Refusals are learned. What the tables alone refuse depends only on the byte, the lexer
  state s and restart's answer r (0 where no lexeme may end), so `refused` keeps per
  (s, r) a table of 256 bytes, 0 for those learned refused, in the lexer's `derived`
  store: every walk of the grammar adds to it and reads it (`learn`).
* A plan. Where a node of many children is live in s and (s, r) has a table, its
  children are filtered through it at once (`bytes.translate`, `itertools.compress`),
  and if that leaves out at least half, the walk takes the rest from a list (`todo`,
  the plan) instead of in preorder: the others are counted, never visited. Where
  restart is first asked at such a node's child, the siblings after it are filtered the
  same way. `stop` is where the preorder walk stops and the plan takes over: the end of
  the planned child being walked.
* All below at once. Where each inner child of a node would be taken whole and each leaf
  child reads back into the node's state (a known table entry), all tokens below the
  node are set together.

The start state's region. What a walk from lexer state s at the root does without a call
— the tokens it allows by known table entries and loops, the children it refuses where
no lexeme may end — depends only on s (and on table entries, which never change once
known), not on the parser: inside a string, every token but those with a quote. So, from
the REGION_AFTER-th walk from s at the root on, the walk takes it from s's *region*
(`start_region`, built once per (trie, s) and kept in the lexer's `derived` store, so
shared by the grammar's matchers, at most REGIONS of them): it copies the flags of its
tokens at once and visits only its *frontier*, the nodes whose visit calls the lexer or
the parser (a transition not filled, a loop not computed, a lexeme ending: restart or
advance), each from its parent's state, in preorder, as a plan of nodes at any depth. A
frontier node the learned refusals refuse is left out too: where restart is first asked
at one, those after it from the same state are filtered at once (`leave_out`). A region
is kept only where it pays: where it takes at once more than its frontier costs to visit
(`region_cost`): PAYS per parent state its nodes are visited from, PER_FRONTIER_NODE per
node.

None of this changes what is asked of the lexer and the parser, nor in which order: a
child is left out only where its visit would have refused it from known table entries
and a restart already asked, a region's node only where its visit would have made no
call, and all below a node is taken only where each child's visit would have allowed it
without a call (the C walker, which visits every node, gives the
same masks, node counts and calls: tests/accel/test_native.py). The speed, per workload,
is in docs/benchmarks.md; the seam to other backends in docs/backends.md.

This function is the hot loop of refimpl's "python" backend; other backends implement the
same interface: (trie arrays, lexer table and flags, the parser's two hooks `advance` and
`restart` — recognizer.py —, start state).
"""
from __future__ import annotations

from array import array
from itertools import compress
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Protocol, Tuple

from ..recognition.lexer import GREEDY_ENDS, LAZY_ENDS, MULTIBYTE, Lexer
from ..tokens.subtrees import LEAD_BYTES
from ..tokens.trie import SEVERAL_TOKENS, TokenTrie

if TYPE_CHECKING:
    from ..trace import Tracer

#: a table of bytes not (yet) known refused: every byte may be walked
WALK_ALL = b"\x01" * 256
#: the children a node needs for them to be filtered by such a table (fewer are visited:
#: a visit that refuses costs less than a filter)
MANY = 8
#: the walk from a state at the root that builds its region (the first one fills the
#: table entries the region reads: built before, it would leave more on its frontier)
REGION_AFTER = 2
#: the most regions kept per lexer (each holds a flag per token of the vocabulary)
REGIONS = 16
#: what a region must take at once (its tokens, the nodes below the children it refuses),
#: to be kept, per lexer state its frontier is visited from (about what the first visit
#: from such a state costs: the call, and `leave_out` of the nodes after it from the same
#: state) ...
PAYS = 16
#: ... and per node of its frontier (a node left out costs a pass over it; one visited in
#: preorder, where a plan refuses many children at once, may cost less)
PER_FRONTIER_NODE = 1


class ParserHooks(Protocol):
    """What the walk asks the parser (refimpl.recognition.recognizer.Recognizer has both)."""

    def advance(self, state: int, top: int, b: int) -> Tuple[int, int]: ...

    def restart(self, state: int, top: int) -> Tuple[int, int]: ...


def refusals(lexer: Lexer) -> Dict[Tuple[int, int], bytearray]:
    """The bytes the walk learned refused, per (lexer state, restart's answer or 0): kept in
    the lexer's `derived` store, so shared by every walk of its grammar (a byte goes from 1
    to 0 once, and stays: the table entries it was learned from never change); a fresh
    store per walk for a lexer without one."""
    derived = getattr(lexer, "derived", None)
    if derived is None:
        return {}
    return derived.setdefault(("walk", "refused"), {})


class Region(NamedTuple):
    """What a walk from lexer state s at the root of a trie does without a call (see the
    module docstring): the flags of the tokens it allows (one byte per token id), the same
    tokens as ids, the number of nodes below the children it refuses, and its frontier: the nodes
    whose visit calls the lexer or the parser, in reverse preorder (the last first: a stack
    extended with them gives the first first), with their parents' states."""

    flags: bytes
    tokens: List[int]  # a list: the vocabulary's ints, shared, and read faster than an array's
    skipped: int
    frontier: List[int]
    parents: List[int]


def start_region(trie: TokenTrie, lexer: Lexer, s: int, n_vocab: int) -> Optional[Region]:
    """The region of state s in `trie` for a vocabulary of n_vocab ids, kept in the lexer's
    `derived` store (a fresh store per walk for a lexer without one: no region); None
    before the REGION_AFTER-th time it is asked, beyond REGIONS regions, and where it
    would not pay (`region_cost`)."""
    derived = getattr(lexer, "derived", None)
    if derived is None:
        return None
    regions = derived.setdefault(("walk", "regions"), {})  # (trie, s) -> Region, or None: it would not pay
    key = (trie, s)
    if key in regions:
        return regions[key]
    asked = derived.setdefault(("walk", "region asked"), {})  # (trie, s) -> walks from s so far
    asked[key] = asked.get(key, 0) + 1
    kept = derived.setdefault(("walk", "regions kept"), [0])  # the regions kept (threads may race: a soft bound)
    if asked[key] < REGION_AFTER or kept[0] >= REGIONS:
        return None
    region: Optional[Region] = build_region(trie, lexer, s, n_vocab)
    if region is not None and len(region.tokens) + region.skipped < region_cost(region):
        region = None
    kept[0] += region is not None
    regions[key] = region
    return region


def region_cost(region: Region) -> int:
    """What visiting a region's frontier costs, in nodes taken at once (PAYS,
    PER_FRONTIER_NODE): its nodes from one parent state are mostly left out together after
    the first of them is visited (`leave_out`), so the number of parent states weighs most.
    Inside a JSON string on GPT-2, after the slicer applied the plain-text slices (a trie
    of the 635 nodes whose tokens hold a quote or an escape), the frontier is the 47
    children of the closing quotes, all from one state: 16 + 47, against 347 taken at once."""
    return PAYS * len(set(region.parents)) + PER_FRONTIER_NODE * len(region.frontier)


def build_region(trie: TokenTrie, lexer: Lexer, s: int, n_vocab: int) -> Region:
    """The region of s in `trie`: walk()'s visits from s at the root in preorder, as far as
    they go without a call — a subtree taken whole; a node refused by a known table entry
    where no lexeme may end (its subtree skipped); a node whose known transition is live
    with no lazy lexeme ending (its tokens, then its children) — and, on the frontier, every
    node whose visit would call: a transition or loop not computed, a lexeme ending.

    >>> from refimpl import Grammar, Matcher, Vocabulary
    >>> v = Vocabulary.from_bytes([b"a", b"ab", b"a;", b";", b"1"])
    >>> m = Matcher(Grammar.from_lark('start: /[a-z]+/ ";"'), v, slices=[])
    >>> m.consume_bytes(b"x"), m.mask().allowed()  # the walk fills the table entries
    (True, [0, 1, 2, 3])
    >>> r = build_region(v.trie, m.recognizer.lexer, m.recognizer.state, len(v))
    >>> [v.tokens[t] for t in r.tokens], [v.tokens[v.trie.token[n]] for n in reversed(r.frontier)]
    ([b'a', b'ab'], [b'1', b';', b'a;'])

    (";" ends the lexeme, and so may "1" — restart asked, a call: on the frontier.)
    """
    byte, end, depth = trie.byte, trie.end, trie.depth
    below, byte_sets, _, _, first, subtree_tokens, _ = trie.subtrees()
    table, ends, loop_of, escapes = lexer.table, lexer.ends, lexer.loop_of, lexer.escapes
    tokens: List[int] = []
    frontier: List[int] = []
    parents: List[int] = []
    states = [s] * (trie.max_depth + 1)
    n, size, skipped = 1, len(byte), 0
    while n < size:
        p = states[depth[n] - 1]
        i, k = loop_of[p], below[n]
        if i < 0 < k:  # its visit computes p's loop
            t = -1
        elif i > 0 < k and not byte_sets[k] & escapes[i] and not ends[p] & LAZY_ENDS:
            tokens.extend(subtree_tokens[first[n]:first[end[n]]])  # taken whole
            n = end[n]
            continue
        else:
            t = table[p << 8 | byte[n]]
        if t == 0 and not ends[p] & GREEDY_ENDS:  # refused: no lexeme can end in p
            skipped += end[n] - n - 1
            n = end[n]
        elif t <= 0 or ends[t] & LAZY_ENDS:  # a call: fill, loop, restart or advance
            frontier.append(n)
            parents.append(p)
            n = end[n]
        else:
            states[depth[n]] = t
            tokens.extend(subtree_tokens[first[n]:first[n + 1]])
            n += 1
    flags = bytearray(n_vocab)
    for x in tokens:
        flags[x] = 1
    frontier.reverse()
    parents.reverse()
    return Region(bytes(flags), tokens, skipped, frontier, parents)


def walk(  # noqa: C901 -- the hot loop, one function on purpose: a helper call costs more than a node
    trie: TokenTrie, lexer: Lexer, parser: ParserHooks, state: int, top: int, allowed: bytearray,
    trace: Optional[Tracer] = None,
) -> int:
    """Set allowed[t] = 1 for every token t whose bytes can follow (state, top).

    Returns the number of trie nodes walked (those in subtrees taken whole, and children
    a plan leaves out, included). `trace` (refimpl/trace.py) hears of each subtree
    skipped or taken whole and each restart asked (then no plan is made: every node is
    visited); it is tested only there, off the common path.
    """
    byte, end, depth, token = trie.byte, trie.end, trie.depth, trie.token
    table, fill, ends = lexer.table, lexer.fill, lexer.ends
    loop_of, loop, escapes = lexer.loop_of, lexer.loop, lexer.escapes
    below, byte_sets, _, _, first, subtree_tokens, children_below = trie.subtrees()
    children_first, children, child_bytes, fanout, siblings, parent, leaf_first, leaf_bytes = trie.children()
    advance, restart = parser.advance, parser.restart
    greedy_ends, lazy_ends = GREEDY_ENDS, LAZY_ENDS
    refused = refusals(lexer)  # (s, r) -> a table of the bytes known refused (0)
    many = MANY if trace is None else 256  # the children a node needs for a plan (none when tracing)
    states = [0] * (trie.max_depth + 1)
    states[0] = state
    # The parser top changes only where a lexeme ends, so it is kept on a stack of
    # (depth, top) entries, one per such node on the current path; `last` is the depth of
    # the newest. Leaving that node's subtree (reaching depth <= last) drops the entry.
    scan_depths = [0]
    scan_tops = [top]
    restarts: List[Dict[int, int]] = [{}]  # per entry: lexer state -> restart(state, top)[0]
    last = 0
    # Plans: per node on the current path whose children are walked from a list, those a
    # table did not refuse (todo[base:], the next on top), rather than all in preorder:
    # (the children's depth, base, the node's end, the stop before). `stop` is where the
    # preorder walk stops: the end of the planned child walked, or of the trie.
    todo: List[int] = []
    frontier_parents: List[int] = []
    plans: List[Tuple[int, int, int, int]] = []
    plan_depth = 0  # the depth of the newest plan's children (0: none)
    n, stop = 0, len(byte)
    skipped = 0  # nodes inside skipped subtrees (counting is cheaper there)
    live = True  # n (the root, or a live node with many children): its children are next
    region = None if trace is not None else start_region(trie, lexer, state, len(allowed))
    if region is not None:  # its tokens at once, then its frontier as a plan of depth -1
        if len(allowed) == len(region.flags) and allowed.find(1) < 0:
            allowed[:] = region.flags
        else:
            for x in region.tokens:
                allowed[x] = 1
        skipped = region.skipped
        plans.append((-1, 0, stop, stop))
        todo.extend(region.frontier)
        frontier_parents = list(region.parents)
        live = False
        n = stop  # the first frontier node is taken from the plan (below)
    while True:
        if live:
            live = False
            t = states[depth[n]]
            kept = None
            if fanout[n] >= many:
                a, z = children_first[n], children_first[n + 1]
                if (loop_of[t] > 0 and not byte_sets[children_below[n]] & escapes[loop_of[t]]
                        and not ends[t] & lazy_ends
                        and all(table[t << 8 | b] == t for b in leaf_bytes[leaf_first[n]:leaf_first[n + 1]])):
                    # each inner child would be taken whole, each leaf read back into t:
                    # all below n is allowed
                    for x in subtree_tokens[first[n + 1]:first[end[n]]]:
                        allowed[x] = 1
                    n = end[n]
                    continue
                r = restarts[-1].get(t, -1) if ends[t] & greedy_ends else 0
                keep = refused.get((t, r)) if r >= 0 else None
                if keep is not None:
                    walks = child_bytes[a:z].translate(keep)  # 1 for each child to walk
                    if 2 * walks.count(0) >= z - a:
                        kept = list(compress(children[a:z], walks))
            if kept is None:  # its children in preorder
                n += 1
            else:  # a plan: the children the table refuses are left out
                skipped += end[n] - n - 1 - (z - a) - below_count(end, kept)  # below those left out
                plans.append((depth[n] + 1, len(todo), end[n], stop))
                plan_depth = depth[n] + 1
                todo.extend(kept)
                n = stop  # the first child is taken from the plan (below)
        while n < stop:
            d = depth[n]
            if d <= last:
                while scan_depths[-1] >= d:
                    scan_depths.pop()
                    scan_tops.pop()
                    restarts.pop()
                last = scan_depths[-1]
            s = states[d - 1]
            i = loop_of[s]
            k = below[n]
            if i and k:  # s may loop (-1: not known yet), and n is no leaf (its loop is asked only then)
                if i < 0:
                    i = loop(s)
                if i and not byte_sets[k] & escapes[i] and not ends[s] & lazy_ends:
                    if trace is not None:
                        trace.taken_whole(n, s)
                    for x in subtree_tokens[first[n]:first[end[n]]]:
                        allowed[x] = 1
                    n = end[n]
                    continue
            b = byte[n]
            t = table[s << 8 | b]
            if t < 0:
                t = fill(s, b)
            if t == 0 or ends[t] & lazy_ends:
                if t == 0:  # the lexeme in s must end before b, and b start the next one
                    u = r = 0
                    if ends[s] & greedy_ends:
                        r = restarts[-1].get(s, -1)
                        if r < 0:
                            r = restarts[-1][s] = restart(s, scan_tops[-1])[0]
                            if trace is not None:
                                trace.restart_asked()
                            keep = refused.get((s, r)) if siblings[n] >= many and d != plan_depth else None
                            if keep is not None:  # a plan for n's siblings still to visit
                                p = parent[n]
                                a = children_first[p]
                                j = child_bytes.index(b, a, children_first[p + 1])  # n's place: its byte's
                                kept = list(compress(children[a:j], child_bytes[a:j].translate(keep)))
                                if 2 * len(kept) <= j - a:
                                    skipped += end[p] - end[n] - (j - a) - below_count(end, kept)
                                    plans.append((d, len(todo), end[p], stop))
                                    plan_depth = d
                                    todo.extend(kept)
                                    stop = end[n]  # n's subtree, then the plan
                            elif d == plan_depth and plans[-1][0] < 0 and (s, r) in refused:
                                # n is on the region's frontier: those after it from s, filtered
                                skipped += leave_out(todo, frontier_parents, s, refused[(s, r)], trie)
                        if r != 0:
                            u = table[r << 8 | b]
                            if u < 0:
                                u = fill(r, b)
                    if u == 0:
                        if trace is not None:
                            trace.skipped(n, b, s, r if ends[s] & greedy_ends else -1)
                        if siblings[n] >= many and r >= 0:  # remembered for the next plans
                            learn(refused, s, r, b, loop_of[s], escapes, ends[s] & lazy_ends)
                        skipped += end[n] - n - 1
                        n = end[n]
                        continue
                t, top = advance(s, scan_tops[-1], b)
                if t == 0:
                    if trace is not None:
                        trace.skipped(n, b, s, -2)
                    skipped += end[n] - n - 1
                    n = end[n]
                    continue
                scan_depths.append(d)
                scan_tops.append(top)
                restarts.append({})
                last = d
            states[d] = t
            tok = token[n]
            if tok >= 0:
                allowed[tok] = 1
            elif tok == SEVERAL_TOKENS:
                for x in trie.multi[n]:
                    allowed[x] = 1
            if fanout[n] >= many:
                live = True
                break
            n += 1
        else:  # n reached stop: the planned child's subtree is walked (or the trie)
            if not plans:
                return len(byte) - 1 - skipped
            plan_kind, base, plan_end, plan_stop = plans[-1]
            if len(todo) > base:  # the plan's next child
                n = todo.pop()
                stop = end[n]
                if plan_kind < 0:  # the region's next frontier node (no lexeme ended on its path)
                    p = states[depth[n] - 1] = frontier_parents.pop()
                    plan_depth = depth[n]
                    del scan_depths[1:], scan_tops[1:], restarts[1:]
                    last = 0
                    r = restarts[0].get(p, -1) if ends[p] & greedy_ends else 0
                    keep = refused.get((p, r)) if r >= 0 else None
                    if keep is not None and not keep[byte[n]]:  # refused: left out
                        skipped += stop - n - 1
                        n = stop
            else:  # the plan is done: on after its node
                plans.pop()
                plan_depth = plans[-1][0] if plans else 0
                n, stop = plan_end, plan_stop


def leave_out(todo: List[int], parents: List[int], s: int, keep: bytearray, trie: TokenTrie) -> int:
    """Leave out of a region's frontier still to visit (`todo`, its nodes; `parents`, their
    parents' states) the nodes whose parent is in state s and whose byte `keep` refuses;
    return the number of nodes below them."""
    byte, end = trie.byte, trie.end
    if parents.count(s) == len(parents):  # all from s (the common case): their bytes at once
        walks = bytes(map(byte.__getitem__, todo)).translate(keep)
    else:
        walks = bytes(q != s or keep[byte[x]] for x, q in zip(todo, parents))
    if all(walks):
        return 0
    skipped = below_count(end, todo)
    todo[:] = compress(todo, walks)
    parents[:] = compress(parents, walks)
    return skipped - below_count(end, todo)


def below_count(end: "array[int]", nodes: List[int]) -> int:
    """The number of nodes below `nodes` (in their subtrees, not them)."""
    return sum(map(end.__getitem__, nodes)) - sum(nodes) - len(nodes)


def learn(refused: Dict[Tuple[int, int], bytearray], s: int, r: int, b: int, i: int, escapes: List[int],
          lazy: int) -> None:
    """Byte b was refused in lexer state s, restart's answer r, by the tables alone: so it
    is wherever (s, r) come again — if no subtree of a node of byte b could have been
    taken whole in s instead: s's loop is known (i = loop_of[s] >= 0: no `loop` call is
    left out), and either nothing loops in s, a lazy lexeme ends there, or b escapes s's
    loop (and, if b begins a multi-byte character, so do the characters: a subtree read
    as UTF-8 from there holds the pseudo-byte MULTIBYTE in place of b: subtrees.py)."""
    keep = refused.get((s, r))
    if keep is not None and not keep[b]:  # known already
        return
    if i < 0 or not (i == 0 or lazy or (i < len(escapes) and escapes[i] >> b & 1
                                         and (not LEAD_BYTES >> b & 1 or escapes[i] & MULTIBYTE))):
        return
    if keep is None:
        keep = refused.setdefault((s, r), bytearray(WALK_ALL))
    keep[b] = 0
