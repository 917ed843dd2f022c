"""Token masks: which tokens of a vocabulary may come next (docs/semantics.md).

    mask.py        a token mask and its bit layout
    walk.py        the trie walk: the hot loop (docs/backends.md)
    slicer.py      slices of the vocabulary with precomputed masks (docs/slicer.md)
    index/         the token index of a regular grammar (docs/token-index.md)
    matcher.py     masks, consume and rollback for one generation
    maskcache.py   masks by (lexer state, compacted Earley sets)
    oracle.py      the naive definition, which every optimisation is tested against
"""
