"""The mask walk: every token of the trie against the current state, in one pass.

The walk visits the trie in preorder and keeps, per depth d, the state after the first d
bytes of the current node's path: a lexer state and a parser top (how many Earley rows are
live). At node n, with byte b, from its parent's state (s, top):

    s' = table[s << 8 | b]             one list index, after warm-up
    s' dead and no lexeme can end in s  ->  skip the subtree: n = end[n]
    s' dead but a lexeme can end in s,
      or a lazy lexeme ends in s'       ->  ask the parser: advance(s, top, b) scans the
                                            lexeme (pushing a row, or reusing the row
                                            pushed for the same lexeme before) and
                                            restarts the lexer; dead -> skip the subtree
    otherwise                           ->  s' with the parent's top
    a token ends at n                   ->  its bit is set

Moving to a sibling or an uncle pops the parser rows pushed below: the parser top is a
stack of (depth, top) entries, one per node on the current path where a lexeme ended, and
an entry is dropped when the walk leaves that node's subtree (rows stay cached for reuse).
The parser is involved at well under 1% of nodes; the common step is a few list and array
indexings on ints, with local aliases and no method calls (measured per node in
docs/benchmarks.md; the seam to other backends is in docs/backends.md).

This function is the hot loop of refimpl's "python" backend; other backends implement the
same interface: (trie arrays, lexer table and flags, the `advance` hook, start state).
"""
from __future__ import annotations

from typing import Callable, Tuple

from ..lexer import GREEDY_ENDS, LAZY_ENDS, Lexer
from .trie import SEVERAL_TOKENS, TokenTrie

Advance = Callable[[int, int, int], Tuple[int, int]]


def walk(trie: TokenTrie, lexer: Lexer, advance: Advance, state: int, top: int, allowed: bytearray) -> int:
    """Set allowed[t] = 1 for every token t whose bytes can follow (state, top).

    Returns the number of trie nodes walked.
    """
    byte, end, depth, token = trie.byte, trie.end, trie.depth, trie.token
    table, fill, ends = lexer.table, lexer.fill, lexer.ends
    greedy_ends, lazy_ends = GREEDY_ENDS, LAZY_ENDS
    states = [0] * (trie.max_depth + 1)
    states[0] = state
    # The parser top changes only where a lexeme ends, so it is kept on a stack of
    # (depth, top) entries, one per such node on the current path; `last` is the depth of
    # the newest. Leaving that node's subtree (reaching depth <= last) drops the entry.
    scan_depths = [0]
    scan_tops = [top]
    last = 0
    n = 1
    size = len(byte)
    skipped = 0  # nodes inside skipped subtrees (counting is cheaper there)
    while n < size:
        d = depth[n]
        if d <= last:
            while scan_depths[-1] >= d:
                scan_depths.pop()
                scan_tops.pop()
            last = scan_depths[-1]
        s = states[d - 1]
        b = byte[n]
        t = table[s << 8 | b]
        if t < 0:
            t = fill(s, b)
        if t == 0 or ends[t] & lazy_ends:
            if t == 0 and not ends[s] & greedy_ends:
                skipped += end[n] - n - 1
                n = end[n]
                continue
            t, top = advance(s, scan_tops[-1], b)
            if t == 0:
                skipped += end[n] - n - 1
                n = end[n]
                continue
            scan_depths.append(d)
            scan_tops.append(top)
            last = d
        states[d] = t
        tok = token[n]
        if tok >= 0:
            allowed[tok] = 1
        elif tok == SEVERAL_TOKENS:
            for x in trie.multi[n]:
                allowed[x] = 1
        n += 1
    return size - 1 - skipped
