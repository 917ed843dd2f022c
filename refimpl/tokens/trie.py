"""The token trie, flat and in preorder.

Node 0 is the root (the empty prefix). Every other node n stands for one byte string, the
path from the root; for node n:

  byte[n]    the last byte of that path
  depth[n]   its length
  end[n]     the index just past n's subtree: nodes n+1 .. end[n]-1 extend n's bytes, so a
             byte that kills the lexer at n skips the whole subtree with `n = end[n]`
  token[n]   the token whose bytes are exactly the path: its id, -1 for none, or -2 when
             several ids share these bytes (then `multi[n]` lists them)

and, for taking a subtree whole (`subtrees()`, built on first use):

  below[n]   for an inner node, the id of the set of bytes in its subtree (its own
             included): `byte_sets[id]` as an int, `byte_set_words[4 id : 4 id + 4]`
             as four 64-bit words; 0 for a leaf (nothing to gain there)
  tokens     every token id in preorder; the subtree of n holds
             tokens[first[n] : first[end[n]]]

Only grammar tokens are in the trie (special and empty tokens never are). Arrays of
machine ints, not lists of int objects: the 131k-token Tekken trie fits in a few MB.
Built once per vocabulary (`Vocabulary.trie`) and shared by every Matcher. The trie needs
only the tokens' bytes and which of them are grammar tokens (a `TokenSource`), so it does
not depend on vocab.py; the vocabulary builds and caches its trie.

>>> from refimpl.tokens.vocab import Vocabulary
>>> t = TokenTrie(Vocabulary.from_bytes([b"a", b"ab", b"b", b"ab"]))
>>> [bytes([t.byte[n]]) for n in range(1, len(t))], list(t.end), list(t.token)
([b'a', b'b', b'b'], [4, 3, 3, 4], [-1, 0, -2, 2])
>>> t.multi[2]
(1, 3)
"""
from __future__ import annotations

from array import array
from typing import Dict, Iterable, List, NamedTuple, Optional, Protocol, Sequence, Tuple

NO_TOKEN = -1
SEVERAL_TOKENS = -2


class TokenSource(Protocol):
    """What a trie is built from: a `Vocabulary`, or anything with its two members."""

    @property
    def tokens(self) -> Sequence[bytes]:
        """Token id -> its bytes."""

    def is_grammar_token(self, t: int) -> bool:
        """May token t appear in the trie (not special, not empty)?"""


class Subtrees(NamedTuple):
    """What a trie's subtrees hold, for taking one whole (see the module docstring)."""

    below: "array[int]"
    byte_sets: List[int]
    byte_set_words: "array[int]"
    tokens: "array[int]"
    first: "array[int]"


class TokenTrie:
    def __init__(self, vocab: TokenSource, token_ids: Optional[Iterable[int]] = None) -> None:
        """The trie of the vocabulary's grammar tokens (or of `token_ids` among them)."""
        by_bytes: Dict[bytes, List[int]] = {}
        ids = range(len(vocab.tokens)) if token_ids is None else token_ids
        for t in ids:
            if vocab.is_grammar_token(t):
                by_bytes.setdefault(vocab.tokens[t], []).append(t)
        self.byte = array("B", [0])
        self.depth = array("H", [0])
        self.end = array("i", [0])
        self.token = array("i", [NO_TOKEN])
        self.multi: Dict[int, Tuple[int, ...]] = {}
        path: List[int] = [0]  # the nodes from the root to the last token's node
        previous = b""
        for data in sorted(by_bytes):
            common = 0
            while common < min(len(data), len(previous)) and data[common] == previous[common]:
                common += 1
            self._close(path, common)
            for i in range(common, len(data)):
                path.append(len(self.byte))
                self.byte.append(data[i])
                self.depth.append(i + 1)
                self.end.append(0)
                self.token.append(NO_TOKEN)
            ids = by_bytes[data]
            node = path[-1]
            if len(ids) == 1:
                self.token[node] = ids[0]
            else:
                self.token[node] = SEVERAL_TOKENS
                self.multi[node] = tuple(ids)
            previous = data
        self._close(path, 0)
        self.end[0] = len(self.byte)
        self.max_depth = max(self.depth)
        self.n_tokens = sum(len(ids) for ids in by_bytes.values())
        self._subtrees: Optional[Subtrees] = None

    def subtrees(self) -> Subtrees:
        """The byte sets and token ranges of the subtrees (built once, then kept).

        >>> from refimpl.tokens.vocab import Vocabulary
        >>> t = TokenTrie(Vocabulary.from_bytes([b"a", b"ab", b"b", b"ac", b"ab"]))
        >>> sub = t.subtrees()
        >>> [bytes(b for b in range(256) if sub.byte_sets[sub.below[n]] >> b & 1) for n in range(len(t))]
        [b'abc', b'abc', b'', b'', b'']
        >>> list(sub.tokens), list(sub.first)     # node 1 ("a") holds tokens[0:first[end[1]]]
        ([0, 1, 4, 3, 2], [0, 0, 1, 3, 4, 5])
        """
        if self._subtrees is None:
            size, byte, end = len(self.byte), self.byte, self.end
            for n in range(size):
                if not n < end[n] <= size:
                    raise ValueError("malformed trie: end[%d] = %d (nodes %d)" % (n, end[n], size))
            sets = [0] * size
            for n in range(size - 1, -1, -1):  # children before parents
                if end[n] > n + 1:
                    m = 1 << byte[n] if n else 0
                    child = n + 1
                    while child < end[n]:
                        m |= sets[child] or 1 << byte[child]
                        child = end[child]
                    sets[n] = m
            ids: Dict[int, int] = {0: 0}
            below = array("i", [ids.setdefault(m, len(ids)) for m in sets])
            byte_sets = sorted(ids, key=ids.__getitem__)
            words = array("Q", [m >> (64 * i) & 0xFFFFFFFFFFFFFFFF for m in byte_sets for i in range(4)])
            tokens, first = array("i"), array("i")
            for n in range(size):
                first.append(len(tokens))
                tokens.extend(self.tokens_at(n))
            first.append(len(tokens))
            self._subtrees = Subtrees(below, byte_sets, words, tokens, first)
        return self._subtrees

    def _close(self, path: List[int], keep: int) -> None:
        """Finish the subtrees of the path's nodes deeper than `keep`."""
        while len(path) > keep + 1:
            self.end[path.pop()] = len(self.byte)

    def __len__(self) -> int:
        """The number of nodes, the root included."""
        return len(self.byte)

    def nbytes(self) -> int:
        """Memory held by the arrays (the dict of shared-byte tokens is small)."""
        return sum(a.itemsize * len(a) for a in (self.byte, self.depth, self.end, self.token))

    def tokens_at(self, node: int) -> Tuple[int, ...]:
        t = self.token[node]
        if t >= 0:
            return (t,)
        return self.multi.get(node, ())

    def child(self, node: int, b: int) -> int:
        """The child of `node` by byte b, or -1."""
        child = node + 1
        while child < self.end[node]:
            if self.byte[child] == b:
                return child
            child = self.end[child]
        return -1

    def find(self, data: bytes) -> int:
        """The node whose path is `data`, or -1."""
        n = 0
        for b in data:
            n = self.child(n, b)
            if n < 0:
                return -1
        return n
