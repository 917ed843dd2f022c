"""Subtrees taken whole: what the walk needs to allow a whole subtree of the trie at once.

The walk (walk.py) may skip visiting the nodes of a subtree whose every string keeps the
lexer in its state s: then every token in it is allowed, and nothing else can happen
below (no lexeme ends, none dies). Two ways a string keeps s:

* each of its bytes *loops* on s (the transition by the byte is s itself: Lexer.loop);
* read as UTF-8, each of its characters does — an ASCII byte loops, and every multi-byte
  character leads from s back to s — with perhaps a last character cut short by the
  token's end (its bytes so far lead to a live state on the way back to s).

The trie keeps, per inner node n, *what n's subtree reads*: its bytes; or, when the
strings of the subtree read from n are well-formed UTF-8 (complete characters, the last
perhaps cut short, as regex.unicode's `MULTIBYTE_SEQUENCES` defines them) and the path to n's parent
ends a character, its ASCII bytes plus the pseudo-byte `MULTIBYTE` (bit 256) if it holds
any other character (lexer.MULTIBYTE). The lexer's *escapes* of s use the same 257 bits (bit 256: not
every multi-byte character returns to s), and the subtree is taken whole iff the two sets
are disjoint. Sets are shared by id: `byte_sets[id]` as ints, `byte_set_words` as five
64-bit words per id for walkers in other languages; id 0 (the empty set) marks a leaf,
where nothing is gained. `tokens` lists every token id in preorder, and the tokens of the
subtree of n are tokens[first[n] : first[end[n]]] (`token_list` holds the same ids as a
list: Python reads a list's ints, where it makes a new int object for each item it reads
from an array).

`children_below[n]` is the id of the union of the sets of n's children that are inner
nodes (0, the empty set, if none is): where it is disjoint from a state's escapes, each of
them would be taken whole (and the leaves among n's children are read by the table).

>>> from refimpl.tokens.trie import TokenTrie
>>> from refimpl.tokens.vocab import Vocabulary
>>> t = TokenTrie(Vocabulary.from_bytes([b"a", b"ab", "aé".encode(), "aéb".encode(), b"a\\xff"]))
>>> sub = build(t)
>>> def reads(data):
...     m = sub.byte_sets[sub.below[t.find(data)]]
...     return bytes(b for b in range(256) if m >> b & 1), bool(m & MULTIBYTE)
>>> reads(b"a")              # a\\xff is not UTF-8: the subtree reads bytes
(b'ab\\xa9\\xc3\\xff', False)
>>> reads(b"a\\xc3")          # \\xc3\\xa9, \\xc3\\xa9b: characters
(b'b', True)
>>> reads("aé".encode())     # its parent "a\\xc3" ends inside a character: bytes
(b'b\\xa9', False)
>>> list(sub.tokens), list(sub.first)[:3]   # node 1 ("a") holds tokens[0:first[end[1]]]
([0, 1, 2, 3, 4], [0, 0, 1])
"""
from __future__ import annotations

from array import array
from typing import Dict, List, NamedTuple, Protocol, Tuple

from ..recognition.lexer import MULTIBYTE, words
from ..regex.unicode import MULTIBYTE_SEQUENCES


class Trie(Protocol):
    """What `build` reads of a trie (trie.py's TokenTrie)."""

    byte: "array[int]"
    depth: "array[int]"
    end: "array[int]"
    max_depth: int

    def tokens_at(self, node: int) -> Tuple[int, ...]: ...

_ASCII = (1 << 128) - 1
_HIGH = ((1 << 256) - 1) & ~_ASCII

# The UTF-8 reader of paths: 0 between characters, -1 once not well-formed, else
# 4 * (sequence + 1) + bytes read of it.
_BETWEEN, _BROKEN = 0, -1
_LEAD = [-1] * 256
for _i, _seq in enumerate(MULTIBYTE_SEQUENCES):
    for _b in range(_seq[0][0], _seq[0][1] + 1):
        _LEAD[_b] = _i
#: the bytes that begin a multi-byte character: only at a node of one of these may a
#: subtree's set hold MULTIBYTE in place of the node's byte (any other byte is in it)
LEAD_BYTES = sum(1 << b for b in range(256) if _LEAD[b] >= 0)


def _read(at: int, b: int) -> int:
    """The UTF-8 reader's state after byte b."""
    if at == _BETWEEN:
        if b < 0x80:
            return _BETWEEN
        i = _LEAD[b]
        return _BROKEN if i < 0 else 4 * (i + 1) + 1
    if at == _BROKEN:
        return _BROKEN
    seq, done = MULTIBYTE_SEQUENCES[at // 4 - 1], at % 4
    lo, hi = seq[done]
    if not lo <= b <= hi:
        return _BROKEN
    return _BETWEEN if done + 1 == len(seq) else at + 1


class Subtrees(NamedTuple):
    """What a trie's subtrees hold, for taking one whole (see the module docstring)."""

    below: "array[int]"
    byte_sets: List[int]
    byte_set_words: "array[int]"
    tokens: "array[int]"
    first: "array[int]"
    token_list: List[int]
    children_below: "array[int]"


def build(trie: Trie) -> Subtrees:
    """The subtrees' sets and token ranges (TokenTrie.subtrees keeps them)."""
    size, byte, end, depth = len(trie.byte), trie.byte, trie.end, trie.depth
    for n in range(size):
        if not n < end[n] <= size:
            raise ValueError("malformed trie: end[%d] = %d (nodes %d)" % (n, end[n], size))
    # top down: the reader's state after each path, and after its parent's
    after, before = [_BETWEEN] * size, [_BETWEEN] * size
    at = [_BETWEEN] * (trie.max_depth + 1)
    for n in range(1, size):
        d = depth[n]
        before[n] = at[d - 1]
        after[n] = at[d] = _read(at[d - 1], byte[n])
    # bottom up: each subtree's bytes, and whether some path in it is not well-formed
    raw = [0] * size
    broken = bytearray(size)
    for n in range(size - 1, 0, -1):
        m, bad = 1 << byte[n], after[n] == _BROKEN
        child = n + 1
        while child < end[n]:
            m |= raw[child]
            bad = bad or broken[child] == 1
            child = end[child]
        raw[n], broken[n] = m, bad
    ids: Dict[int, int] = {0: 0}
    below = array("i", [0] * size)
    for n in range(1, size):
        if end[n] > n + 1:
            m = raw[n]
            if not broken[n] and before[n] == _BETWEEN:
                m = (m & _ASCII) | (MULTIBYTE if m & _HIGH else 0)
            below[n] = ids.setdefault(m, len(ids))
    byte_sets = sorted(ids, key=ids.__getitem__)
    children_below = array("i", [0] * size)
    for n in range(size):
        m, child = 0, n + 1
        while child < end[n]:
            m |= byte_sets[below[child]]  # (a leaf's is the empty set)
            child = end[child]
        if m not in ids:
            ids[m] = len(byte_sets)
            byte_sets.append(m)
        children_below[n] = ids[m]
    tokens, first = array("i"), array("i")
    for n in range(size):
        first.append(len(tokens))
        tokens.extend(trie.tokens_at(n))
    first.append(len(tokens))
    return Subtrees(below, byte_sets, array("Q", [w for m in byte_sets for w in words(m)]), tokens, first,
                    list(tokens), children_below)
