"""`Grammar`: a grammar ready for matching, from any frontend.

    Grammar.from_regex(pattern)     the whole output matches one regex (one lexeme)
    Grammar.from_lark(text)         llguidance's Lark dialect

Each frontend builds a GrammarIR; it is simplified (simplify.py) and compiled to flat
arrays (ir.CompiledGrammar) once. A Grammar holds no matching state: one Grammar serves
any number of Matchers.

>>> g = Grammar.from_regex(r"[0-9]+")
>>> print(g.to_text())
start: /[0-9]+/
<BLANKLINE>
"""
from __future__ import annotations

from ..limits import DEFAULT_LIMITS, Limits
from ..regex import ExprSet, compile_pattern
from .ir import GrammarIR
from .simplify import simplify


class Grammar:
    def __init__(self, ir: GrammarIR, kind: str, source: str) -> None:
        self.ir = simplify(ir)
        self.compiled = self.ir.compile()
        self.kind = kind
        self.source = source
        self.limits = ir.limits

    @classmethod
    def from_regex(cls, pattern: str, *, limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """The language of one regular expression (Rust regex syntax, full match)."""
        ir = GrammarIR(ExprSet(limits), limits)
        lexeme = ir.add_lexeme("/%s/" % pattern, compile_pattern(ir.es, pattern))
        ir.start = ir.add_nonterminal("start")
        ir.add_rule(ir.start, [lexeme])
        return cls(ir, "regex", pattern)

    @classmethod
    def from_lark(cls, text: str, *, limits: Limits = DEFAULT_LIMITS) -> "Grammar":
        """A grammar in llguidance's Lark dialect (docs/semantics.md)."""
        from .lark import parse_lark

        return cls(parse_lark(text, limits=limits), "lark", text)

    def to_text(self) -> str:
        """The simplified rules, in Lark-like notation."""
        return self.ir.to_text()

    def __repr__(self) -> str:
        return "Grammar.from_%s(%r)" % (self.kind, self.source if len(self.source) < 60 else self.source[:57] + "...")
