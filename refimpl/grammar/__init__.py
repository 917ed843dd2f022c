"""Grammars: the IR, frontends (Lark, JSON schema) and simplification.

    parse_lark(text) -> GrammarIR      the Lark frontend (llguidance's dialect), lark/
    simplify(ir) -> GrammarIR          language-preserving rewrites, simplify.py
    ir.compile() -> CompiledGrammar    flat arrays for the Earley parser, ir.py
"""
from .ir import CompiledGrammar, GrammarIR, Lexeme
from .lark import parse_lark
from .simplify import simplify

__all__ = ["CompiledGrammar", "GrammarIR", "Lexeme", "parse_lark", "simplify"]
