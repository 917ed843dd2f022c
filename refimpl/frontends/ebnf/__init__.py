"""Character grammars: llama.cpp's GBNF, xgrammar's EBNF and kbnf's.

    text --gbnf.py, xgrammar.py, kbnf.py--> rules (ast.py: code points, tokens, structure)
         --compiler.py--> GrammarIR, regular parts as lexemes where lexing.py proves
                          that greedy lexing keeps the language exactly

Their language is the context-free grammar over Unicode code points, matched on the
code points' UTF-8 bytes; tokens written `<[id]>`, `<text>`, `!<...>` are read by id
(docs/semantics.md, "Special tokens").

>>> from refimpl.recognition.recognizer import Recognizer
>>> ir = gbnf_to_ir('root ::= "a"+ [0-9]{2}\\n')
>>> r = Recognizer(ir.compile())
>>> r.consume_bytes(b"aa12"), r.is_accepting()
(True, True)
"""
from __future__ import annotations

from typing import Dict, Optional

from ...errors import GrammarError
from ...grammar.ir import GrammarIR
from ...limits import DEFAULT_LIMITS, Limits
from .compiler import compile_rules
from .gbnf import read_rules


def gbnf_to_ir(text: str, root: str = "root", limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """A GBNF grammar as a GrammarIR (GrammarError with line and column if malformed)."""
    return compile_rules(read_rules(text), root, text, limits)


#: the dialects and their start rules
DIALECTS = {"xgrammar": "root", "kbnf": "start"}


def ebnf_to_ir(text: str, dialect: str, root: Optional[str] = None, limits: Limits = DEFAULT_LIMITS) -> GrammarIR:
    """An EBNF grammar of another engine's dialect as a GrammarIR (the dialect's start
    rule unless `root` is given)."""
    if dialect not in DIALECTS:
        raise GrammarError("unknown EBNF dialect %r (maskref reads: %s)" % (dialect, ", ".join(DIALECTS)))
    root = DIALECTS[dialect] if root is None else root
    if dialect == "kbnf":
        from .kbnf import read_rules as parse_kbnf

        return compile_rules(parse_kbnf(text, limits), root, text, limits)
    from .xgrammar import read_rules as parse_xgrammar

    metadata: Dict[str, Dict[str, object]] = {}
    ir = compile_rules(parse_xgrammar(text, root, metadata), root, text, limits)
    ir.metadata.update(metadata)
    return ir
