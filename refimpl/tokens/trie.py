"""The token trie, flat and in preorder.

Node 0 is the root (the empty prefix). Every other node n stands for one byte string, the
path from the root; for node n:

  byte[n]    the last byte of that path
  depth[n]   its length
  end[n]     the index just past n's subtree: nodes n+1 .. end[n]-1 extend n's bytes, so a
             byte that kills the lexer at n skips the whole subtree with `n = end[n]`
  token[n]   the token whose bytes are exactly the path: its id, -1 for none, or -2 when
             several ids share these bytes (then `multi[n]` lists them)

and `subtrees()`, what each subtree reads and holds, for taking one whole (subtrees.py),
and `children()`, each node's children as a list, for the walk to refuse many at once.

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
from itertools import accumulate
from typing import Dict, Iterable, List, NamedTuple, Optional, Protocol, Sequence, Tuple

from .subtrees import Subtrees
from .subtrees import build as build_subtrees

NO_TOKEN = -1
SEVERAL_TOKENS = -2


class TokenSource(Protocol):
    """What a trie is built from: a `Vocabulary`, or anything with its two members."""

    @property
    def tokens(self) -> Sequence[bytes]:
        """Token id -> its bytes."""

    def is_grammar_token(self, t: int) -> bool:
        """May token t appear in the trie (not special, not empty)?"""


class Children(NamedTuple):
    """Each node's children, listed: those of n are `nodes[first[n]:first[n + 1]]`, their
    bytes `data[first[n]:first[n + 1]]`, in reverse preorder (the last child first: a stack
    extended with them gives the first child first), and `fanout[n]` says how many there
    are (at most 255), `siblings[n]` how many its parent has (n included); `parent[n]` is
    n's parent (-1 for the root); the bytes of n's children that are leaves are
    `leaf_data[leaf_first[n]:leaf_first[n + 1]]` (last first too). In preorder a node's
    children are spread out (n + 1, end[n + 1], ...): listed, a walk can filter a node's
    children by a table of their bytes at once (`bytes.translate`, `itertools.compress`)."""

    first: "array[int]"
    nodes: List[int]  # a list, not an array: `compress` over a list makes no int per item
    data: bytes
    fanout: bytearray
    siblings: bytearray
    parent: "array[int]"
    leaf_first: "array[int]"
    leaf_data: bytes


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
        self._children: Optional[Children] = None
        #: the root's child by each byte (-1: none): the root has up to 256 children, a
        #: search through them is what reading a text token by token costs most
        self.root_child = array("i", [-1] * 256)
        child = 1
        while child < self.end[0]:
            self.root_child[self.byte[child]] = child
            child = self.end[child]

    def subtrees(self) -> Subtrees:
        """What the subtrees read and hold, for taking one whole (subtrees.py; built on
        first use, then kept)."""
        if self._subtrees is None:
            self._subtrees = build_subtrees(self)
        return self._subtrees

    def children(self) -> Children:
        """Each node's children, listed (built on first use, then kept)."""
        if self._children is None:
            self._children = _list_children(self)
        return self._children

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
        if node == 0:
            return self.root_child[b]
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


def _list_children(trie: TokenTrie) -> Children:
    """The children of each node of `trie`, listed (TokenTrie.children). ValueError if the
    trie's `end` and `depth` do not nest (a mangled trie)."""
    byte, end, depth = trie.byte, trie.end, trie.depth
    size = len(byte)
    trie.subtrees()  # checks n < end[n] <= size (else ValueError: malformed trie)
    parents = array("i", [-1]) * size
    counts, leaf_counts = [0] * size, [0] * size
    path = [0]  # the nodes whose subtree holds n
    for n in range(1, size):
        while end[path[-1]] <= n:
            path.pop()
        p = path[-1]
        if end[n] > end[p] or depth[n] != depth[p] + 1:
            raise ValueError("malformed trie: node %d (end %d, depth %d) in node %d (end %d, depth %d)"
                             % (n, end[n], depth[n], p, end[p], depth[p]))
        parents[n] = p
        counts[p] += 1
        if end[n] == n + 1:
            leaf_counts[p] += 1
        path.append(n)
    first, leaf_first = array("i", [0]), array("i", [0])
    first.extend(accumulate(counts))
    leaf_first.extend(accumulate(leaf_counts))
    nodes, leaves = array("i", [0]) * (size - 1), bytearray(leaf_first[-1])
    at, leaf_at = list(first), list(leaf_first)
    for n in range(size - 1, 0, -1):  # the last child first, in each node's list
        p = parents[n]
        nodes[at[p]] = n
        at[p] += 1
        if end[n] == n + 1:
            leaves[leaf_at[p]] = byte[n]
            leaf_at[p] += 1
    fanout = bytearray(min(c, 255) for c in counts)
    siblings = bytearray(map(fanout.__getitem__, parents))
    siblings[0] = 0  # the root has none
    return Children(first, nodes.tolist(), bytes(map(byte.__getitem__, nodes)), fanout, siblings, parents,
                    leaf_first, bytes(leaves))
