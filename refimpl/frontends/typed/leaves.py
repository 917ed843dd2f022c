"""The texts of a scalar, exactly as the grammar has them: each leaf shape (scalar,
Literal, Enum, with its markers) compiled by the JSON-schema frontend into its lexeme, and
run as a lazy DFA over the token's bytes.

Why not decide `1.0` vs integer, `\\/`, `-0` in a range, pattern search and formats here
again: the frontend's number and string representations have many such rules
(docs/jsonschema.md, "Representations"); reading the lexeme it makes keeps parse() and
the grammar of one type in agreement by construction, for scalars. Structure (objects,
arrays, key order, lengths) parse.py checks itself.

>>> from refimpl.frontends.typed.shapes import Shape
>>> s = Shape("int", int); s.keywords.append({"minimum": 0})
>>> dfa = Leaves().dfa(0, s)
>>> [dfa.matches(t) for t in (b"7", b"-0", b"1.0", b"-3")]
[True, False, False, False]
"""
from __future__ import annotations

from typing import Dict, List

from ...grammar.ir import GrammarIR
from ...limits import DEFAULT_LIMITS, Limits
from ...regex import ExprSet, LazyDFA
from ..jsonschema import json_schema_to_ir
from .schema import node_schema
from .shapes import Shape


class Leaves:
    """The lazy DFAs of the leaf shapes of one type, made on first use."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.ir = GrammarIR(ExprSet(limits), limits)
        self.dfas: Dict[int, LazyDFA] = {}

    def dfa(self, node: int, shape: Shape) -> LazyDFA:
        got = self.dfas.get(node)
        if got is None:
            got = self.dfas[node] = self._make(shape)
        return got

    def _make(self, shape: Shape) -> LazyDFA:
        ir = self.ir
        start = json_schema_to_ir(node_schema(shape), ir=ir).start
        exprs: List[int] = []
        for lhs, rhs in ir.rules:
            if lhs == start:
                assert len(rhs) == 1 and rhs[0] < 0, "a scalar schema compiles to one lexeme per alternative"
                exprs.append(ir.lexemes[~rhs[0]].expr)
        return LazyDFA(ir.es, ir.es.union(*exprs))
