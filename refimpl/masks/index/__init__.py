"""refimpl.masks.index — the token index of a regular grammar (outlines-core's Index), built the
V2 way (outlines-core PR #194): a table from DFA state to allowed tokens and next states,
computed once, so that a mask is a lookup (docs/token-index.md).

    regular.py   which grammars have one: the lexer alone decides the language
    naive.py     the definition: every token from every state (the baseline)
    classes.py   steps 1, 2, 5: dead bytes, byte classes, muted literals
    prefix.py    step 3: the prefix graph over class spellings
    build.py     the V2 construction; step 4, parallel roots
    table.py     step 6: the compressed table, a bitset per state

    index = build_index(Grammar.from_regex("[0-9]+"), Vocabulary.load("gpt2"))
    index.mask(index.start); index.next_state(index.start, token); index.is_final(state)
    Matcher(grammar, vocab, backend="index")       # masks from the grammar's index (shared_index)
"""
from ...regex.dfa import DEAD
from .build import ALL_STEPS, Steps, build_index, shared_index
from .naive import naive_index
from .regular import NotRegular, regular_expression
from .table import TokenIndex

__all__ = ["ALL_STEPS", "DEAD", "NotRegular", "Steps", "TokenIndex", "build_index", "naive_index", "regular_expression",
           "shared_index"]
