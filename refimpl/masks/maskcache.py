"""A mask cache keyed by (lexer state, compacted parser state) — issue 17's lazy cache.

The mask depends only on the recogniser's state: the lexer state and the parser's rows
(docs/semantics.md; token budgets are kept at `consume`, the mask does not look ahead to
them). Two parser states with the same compacted key (compaction.py) have the same future,
so the same mask: a JSON array of objects asks for the same few masks again after every
element. The cache keeps the masks' flags, least recently used first out, within
`Limits.mask_cache_bytes` (one byte per token per mask: 50 KB on GPT-2). It is exact by
construction, and tests/masks/test_maskcache.py compares masks with it on and off along random
paths, rollback included.

A key means the same in every Matcher of a grammar (they share its lexer, and compacted
keys name no Matcher's rows), so the cache is the grammar's, one per vocabulary
(`MaskCache.of`, kept in `CompiledGrammar.shared`, as the lexer): a fresh Matcher — one
per request — finds the masks earlier requests computed. Its counts are the grammar's
too. A lock keeps it consistent when Matchers of the grammar run in several threads.

>>> from refimpl import Grammar, Matcher, Vocabulary
>>> g = Grammar.from_lark('start: "[" x ("," x)* "]"\\nx: /[0-9]+/')
>>> m = Matcher(g, Vocabulary.from_bytes([b"[", b"1", b"2", b",", b"]"]), mask_cache=True)
>>> for t in [0, 1, 3, 2, 3, 1, 3, 2, 3]:             # "[1,2,1,2,"
...     _ = m.mask(); _ = m.consume(t)
>>> m.stats["mask_cache_hits"], m.stats["mask_cache_misses"]   # "[1,2,1" as "[1,2", ...
(3, 6)
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Hashable, Optional

from ..frontends.grammar import Grammar
from ..tokens.vocab import Vocabulary

_CREATING = threading.Lock()


class MaskCache:
    """Mask flags by key, least recently used evicted beyond `budget` bytes."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._masks: "OrderedDict[Hashable, bytes]" = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, grammar: Grammar, vocab: Vocabulary, budget: int) -> "MaskCache":
        """The grammar's mask cache over `vocab` (made by the first Matcher that asks, with
        its budget), shared by every Matcher of the grammar over that vocabulary."""
        caches = grammar.compiled.shared.get("mask_caches")
        if not isinstance(caches, dict):
            with _CREATING:
                caches = grammar.compiled.shared.setdefault("mask_caches", {})
        assert isinstance(caches, dict)
        cache = caches.get(vocab)
        if not isinstance(cache, MaskCache):
            with _CREATING:
                cache = caches.setdefault(vocab, cls(budget))
        return cache

    def get(self, key: Hashable) -> Optional[bytes]:
        with self._lock:
            flags = self._masks.get(key)
            if flags is None:
                self.misses += 1
                return None
            self.hits += 1
            self._masks.move_to_end(key)
            return flags

    def put(self, key: Hashable, flags: bytes) -> None:
        if len(flags) > self.budget:
            return
        with self._lock:
            old = self._masks.pop(key, None)
            if old is not None:
                self.size -= len(old)
            self._masks[key] = flags
            self.size += len(flags)
            while self.size > self.budget:
                _, evicted = self._masks.popitem(last=False)
                self.size -= len(evicted)

    def __len__(self) -> int:
        return len(self._masks)
