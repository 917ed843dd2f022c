"""Step 3 of the V2 index: the prefix graph — a dead prefix discards all its extensions.

From one DFA state, every token of a ClassTrie is decided by walking the trie in preorder
with the state after each node's path, exactly as the mask walk does over bytes
(masks/walk.py): at node n with class c, `s' = δ(s, reps[c])`; if s' is dead, no token
below n can be allowed and the walk jumps to `end[n]`; otherwise every token at n goes to
s'. Each class spelling is read once, and a shared prefix once for all tokens below it.

The answer is a *row*: the states the allowed tokens lead to (`targets`), and per token
the number of its target, `k + 1` for `targets[k]`, 0 when refused (`Transitions`).

`walk_each` is the same decision without the graph (each class spelling run from the
state on its own), for measuring what step 3 brings.
"""
from __future__ import annotations

from array import array
from typing import Dict, List, Union

from ...regex.dfa import DEAD, LazyDFA
from .classes import ClassTrie


class Transitions:
    """Per token, 0 (refused) or k + 1 for the state `targets[k]` it leads to: one byte per
    token while a state has at most 255 targets, four beyond."""

    def __init__(self, n_tokens: int) -> None:
        self.targets: List[int] = []
        self.number: Dict[int, int] = {}
        self.of: Union[bytearray, "array[int]"] = bytearray(n_tokens)

    def code(self, target: int) -> int:
        """The number of `target`, given at its first token."""
        k = self.number.get(target)
        if k is None:
            self.targets.append(target)
            k = self.number[target] = len(self.targets)
            if k == 256:  # the byte values as numbers (array("I", a bytearray) would read its raw bytes)
                self.of = array("I", list(self.of))
        return k


def walk_prefixes(ct: ClassTrie, dfa: LazyDFA, state: int, out: Transitions) -> None:
    """Fill `out` with the tokens allowed from `state` and where each leads."""
    trie, reps, table, fill = ct.trie, ct.reps, dfa.table, dfa.fill
    byte, end, depth, token, multi = trie.byte, trie.end, trie.depth, trie.token, trie.multi
    states = [0] * (trie.max_depth + 1)
    states[0] = state
    of, number = out.of, out.number
    n, size = 1, len(byte)
    while n < size:
        d = depth[n]
        s = states[d - 1]
        b = reps[byte[n]]
        t = table[s << 8 | b]
        if t < 0:
            t = fill(s, b)
        if t == DEAD:
            n = end[n]
            continue
        states[d] = t
        tok = token[n]
        if tok != -1:
            k = number.get(t) or out.code(t)
            of = out.of
            if tok >= 0:
                of[tok] = k
            else:
                for x in multi[n]:
                    of[x] = k
        n += 1


def walk_each(ct: ClassTrie, dfa: LazyDFA, state: int, out: Transitions) -> None:
    """The same answer, each class spelling (a trie node with tokens) read from `state`
    alone: no prefix is shared, no extension discarded."""
    trie, reps = ct.trie, ct.reps
    path: List[int] = []
    for n in range(1, len(trie)):
        del path[trie.depth[n] - 1:]
        path.append(reps[trie.byte[n]])
        tokens = trie.tokens_at(n)
        if tokens:
            t = dfa.run(bytes(path), state)
            if t != DEAD:
                k = out.code(t)
                for x in tokens:
                    out.of[x] = k
