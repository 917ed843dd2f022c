"""refimpl.regex — a byte-level regular-expression engine by Brzozowski derivatives.

    pattern text --syntax.read_pattern--> AST --compiler--> expression in an ExprSet
    expression --derivative--> expression ...      (exprs.py, derivative.py)
    LazyDFA: states are expressions, transitions cached in a flat table (dfa.py)
    emptiness, containment, forced bytes with a fuel budget (relevance.py)

>>> r = Regex(r"[0-9]+(\\.[0-9]+)?")
>>> r.matches("3.14"), r.matches("3."), r.to_string()
(True, False, '[0-9]+(?:\\\\.[0-9]+)?')
"""
from __future__ import annotations

from typing import Optional, Union

from .compiler import compile_pattern
from .derivative import derivative
from .dfa import DEAD, LazyDFA
from .exprs import ExprSet
from .printer import to_string
from .classes import byte_classes
from .relevance import check_empty, forced_bytes, is_contained, is_empty
from .reader import read_pattern

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
