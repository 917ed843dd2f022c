"""Character grammars: llama.cpp's GBNF, xgrammar's EBNF (and, to come, kbnf's).

    text --gbnf.py, xgrammar.py--> rules (ast.py: code points, tokens, structure)
         --compiler.py--> GrammarIR, regular parts as lexemes where lexing.py proves
                          that greedy lexing keeps the language exactly

Their language is the context-free grammar over Unicode code points, matched on the
code points' UTF-8 bytes; tokens written `<[id]>`, `<text>`, `!<...>` are read by id
(docs/semantics.md, "Special tokens").

>>> from refimpl.recognizer import Recognizer
>>> ir = parse_gbnf('root ::= "a"+ [0-9]{2}\\n')
>>> r = Recognizer(ir.compile())
>>> r.consume_bytes(b"aa12"), r.is_accepting()
(True, True)
"""
from __future__ import annotations

from ...errors import GrammarError
from ...limits import DEFAULT_LIMITS, Limits
from ..ir import GrammarIR
from .compiler import compile_rules
from .gbnf import parse_rules


def parse_gbnf(text: str, root: str = "root", limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """A GBNF grammar as a GrammarIR (GrammarError with line and column if malformed)."""
    return compile_rules(parse_rules(text), root, text, limits)


DIALECTS = ("xgrammar",)


def parse_ebnf(text: str, dialect: str, root: str = "root", limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """An EBNF grammar of another engine's dialect as a GrammarIR."""
    if dialect != "xgrammar":
        raise GrammarError("unknown EBNF dialect %r (maskref reads: %s; kbnf's is to come)" % (dialect, ", ".join(DIALECTS)))
    from .xgrammar import parse_rules as parse_xgrammar

    return compile_rules(parse_xgrammar(text, root), root, text, limits)
