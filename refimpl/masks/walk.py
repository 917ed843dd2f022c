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
    s' dead and no lexeme can end in s  ->  skip the subtree: n = end[n]
    s' dead but a lexeme can end in s   ->  it ends before b: the next lexeme starts in
                                            r = restart(s, top) (asked once per s and
                                            stack entry: below); table[r << 8 | b] dead ->
                                            skip the subtree; else as the next case
    s' dead (and r reads b), or a lazy
      lexeme ends in s'                 ->  ask the parser: advance(s, top, b) scans the
                                            lexeme (pushing a row, or reusing the row
                                            pushed for the same lexeme before) and
                                            restarts the lexer; dead -> skip the subtree
    otherwise                           ->  s' with the parent's top
    a token ends at n                   ->  its bit is set

Moving to a sibling or an uncle pops the parser rows pushed below: the parser top is a
stack of (depth, top) entries, one per node on the current path where a lexeme ended, and
an entry is dropped when the walk leaves that node's subtree (rows stay cached for reuse).
Each entry also keeps the answers of `restart` for its top (`restarts`): the rows below
the top stay the same while the entry lives, so a lexer state's restart is too. Most
nodes where a lexeme ends are refused by the next lexeme's first byte (after `{"a": 1, `
every token but those starting with `"` or `}`), and these cost two table reads instead
of a call of the parser. The parser is involved at well under 1% of nodes; the common
step is a few list and array indexings on ints, with local aliases and no method calls
(measured per node in docs/benchmarks.md; the seam to other backends is in
docs/backends.md).

This function is the hot loop of refimpl's "python" backend; other backends implement the
same interface: (trie arrays, lexer table and flags, the parser's two hooks `advance` and
`restart` — recognizer.py —, start state).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Protocol, Tuple

from ..recognition.lexer import GREEDY_ENDS, LAZY_ENDS, Lexer
from ..tokens.trie import SEVERAL_TOKENS, TokenTrie

if TYPE_CHECKING:
    from ..trace import Tracer


class ParserHooks(Protocol):
    """What the walk asks the parser (refimpl.recognition.recognizer.Recognizer has both)."""

    def advance(self, state: int, top: int, b: int) -> Tuple[int, int]: ...

    def restart(self, state: int, top: int) -> Tuple[int, int]: ...


def walk(  # noqa: C901 -- the hot loop, one function on purpose: a helper call costs more than a node
    trie: TokenTrie, lexer: Lexer, parser: ParserHooks, state: int, top: int, allowed: bytearray,
    trace: Optional[Tracer] = None,
) -> int:
    """Set allowed[t] = 1 for every token t whose bytes can follow (state, top).

    Returns the number of trie nodes walked (those in subtrees taken whole included).
    `trace` (refimpl/trace.py) hears of each subtree skipped or taken whole and each
    restart asked; it is tested only there, off the common path.
    """
    byte, end, depth, token = trie.byte, trie.end, trie.depth, trie.token
    table, fill, ends = lexer.table, lexer.fill, lexer.ends
    loop_of, loop, escapes = lexer.loop_of, lexer.loop, lexer.escapes
    below, byte_sets, _, subtree_tokens, first = trie.subtrees()
    advance, restart = parser.advance, parser.restart
    greedy_ends, lazy_ends = GREEDY_ENDS, LAZY_ENDS
    states = [0] * (trie.max_depth + 1)
    states[0] = state
    # The parser top changes only where a lexeme ends, so it is kept on a stack of
    # (depth, top) entries, one per such node on the current path; `last` is the depth of
    # the newest. Leaving that node's subtree (reaching depth <= last) drops the entry.
    scan_depths = [0]
    scan_tops = [top]
    restarts: List[Dict[int, int]] = [{}]  # per entry: lexer state -> restart(state, top)[0]
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
                u = 0
                if ends[s] & greedy_ends:
                    r = restarts[-1].get(s, -1)
                    if r < 0:
                        r = restarts[-1][s] = restart(s, scan_tops[-1])[0]
                        if trace is not None:
                            trace.restart_asked()
                    if r != 0:
                        u = table[r << 8 | b]
                        if u < 0:
                            u = fill(r, b)
                if u == 0:
                    if trace is not None:
                        trace.skipped(n, b, s, r if ends[s] & greedy_ends else -1)
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
        n += 1
    return size - 1 - skipped
