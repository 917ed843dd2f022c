"""refimpl.regex — a byte-level regular-expression engine by Brzozowski derivatives.

The pipeline inside the package, each step a module (docs/regex.md):

    pattern text --read_pattern (reader.py)--> syntax tree (ast.py)
        the reader in layers: escapes.py (the text, its errors, escapes) -> brackets.py
        (classes) -> reader.py (groups, alternation, quantifiers, anchors); flags.py
        (?imsUuRx), charsets.py (a class's set: code points or bytes), unicode.py (tables)
    syntax tree --compile_ast (compiler.py)--> expression: an int in an ExprSet (exprs.py:
        hash-consed nodes in normal form, ν)
    expression --derivative (derivative.py)--> expression, one byte at a time
        byte classes (classes.py): bytes no byte set tells apart share one derivative
    LazyDFA (dfa.py): states are expressions, transitions cached in a flat table
    emptiness, containment, forced bytes with a fuel budget (relevance.py)
    expression --to_string (printer.py)--> pattern text again

Every question about expressions keeps its answers in its ExprSet, one cache per
question, `es.caches[f]` for the function f that answers it (exprs.py).

>>> r = Regex(r"[0-9]+(\\.[0-9]+)?")
>>> r.matches("3.14"), r.matches("3."), r.to_string()
(True, False, '[0-9]+(?:\\\\.[0-9]+)?')
"""
from __future__ import annotations

from typing import Optional, Union

from .classes import byte_classes
from .compiler import compile_pattern
from .derivative import derivative
from .dfa import DEAD, LazyDFA
from .exprs import ExprSet
from .printer import to_string
from .reader import read_pattern
from .relevance import check_empty, forced_bytes, is_contained, is_empty

__all__ = [
    "DEAD", "ExprSet", "LazyDFA", "Regex", "byte_classes", "check_empty", "derivative",
    "compile_pattern", "forced_bytes", "is_contained", "is_empty", "read_pattern", "to_string",
]


class Regex:
    """A compiled pattern: its expression in an ExprSet and a lazy DFA over it."""

    def __init__(self, pattern: str, *, extended: bool = False, es: Optional[ExprSet] = None):
        self.pattern = pattern
        self.es = es if es is not None else ExprSet()
        self.expr = compile_pattern(self.es, pattern, extended=extended)
        self.dfa = LazyDFA(self.es, self.expr)

    def matches(self, data: Union[bytes, str]) -> bool:
        """Does the whole of `data` (str: its UTF-8 bytes) match?"""
        if isinstance(data, str):
            data = data.encode("utf-8")
        return self.dfa.matches(data)

    def to_string(self) -> str:
        return to_string(self.es, self.expr)

    def __repr__(self) -> str:
        return "Regex(%r)" % self.pattern
