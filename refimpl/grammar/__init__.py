"""The grammar IR and its rewriting: what every frontend builds and recognition reads.

    GrammarIR            lexemes (regular expressions) and rules over them, ir.py
    repeat(ir, x, m, n)  x?, x*, x+, x{m,n} as BNF rules, repetition.py
    simplify(ir)         language-preserving rewrites, simplify.py
    ir.compile()         CompiledGrammar: flat arrays for the lexer and the Earley parser
"""
from .ir import CompiledGrammar, GrammarIR, Lexeme
from .simplify import simplify

__all__ = ["CompiledGrammar", "GrammarIR", "Lexeme", "simplify"]
