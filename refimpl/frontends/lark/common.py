"""The common terminals: `%import common.NAME`.

They are the terminals of llguidance's common library (itself after Lark's common.lark),
with the same languages. We write them in the dialect itself; names not in
COMMON_TERMINALS are not importable (llguidance has no _STRING_INNER etc.).

>>> common_definitions()["INT"].body.__class__.__name__
'Repeat'
"""
from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Mapping

from ...limits import DEFAULT_LIMITS
from .ast import Definition
from .reader import Reader
from .scanner import scan

COMMON_TERMINALS = (
    "DIGIT", "HEXDIGIT", "INT", "SIGNED_INT", "DECIMAL", "_EXP", "FLOAT", "SIGNED_FLOAT",
    "NUMBER", "SIGNED_NUMBER", "ESCAPED_STRING", "LCASE_LETTER", "UCASE_LETTER", "LETTER",
    "WORD", "CNAME", "WS_INLINE", "WS", "CR", "LF", "NEWLINE", "SH_COMMENT", "CPP_COMMENT",
    "C_COMMENT", "SQL_COMMENT",
)

_COMMON_GRAMMAR = r'''
DIGIT: "0".."9"
HEXDIGIT: "a".."f" | "A".."F" | DIGIT
INT: DIGIT+
SIGNED_INT: ["+" | "-"] INT
DECIMAL: INT "." INT? | "." INT
_EXP: ("e" | "E") SIGNED_INT
FLOAT: INT _EXP | DECIMAL _EXP?
SIGNED_FLOAT: ["+" | "-"] FLOAT
NUMBER: FLOAT | INT
SIGNED_NUMBER: ["+" | "-"] NUMBER

// a double-quoted string: any character but a quote or backslash, or a backslash and
// any character but a newline
ESCAPED_STRING: "\"" (/[^"\\]/ | "\\" /./)* "\""

LCASE_LETTER: "a".."z"
UCASE_LETTER: "A".."Z"
LETTER: UCASE_LETTER | LCASE_LETTER
WORD: LETTER+
CNAME: ("_" | LETTER) ("_" | LETTER | DIGIT)*

WS_INLINE: (" " | "\t")+
WS: (" " | "\t" | "\f" | "\r" | "\n")+
CR: "\r"
LF: "\n"
NEWLINE: (CR? LF)+

SH_COMMENT: "#" /[^\n]*/
CPP_COMMENT: "//" /[^\n]*/
// "/*", then any text without "*/" in it, then "*/"  (& and ~ at work)
C_COMMENT: "/*" (/(?s:.)*/ & ~/(?s:.)*\*\/(?s:.)*/) "*/"
SQL_COMMENT: "--" /[^\n]*/
'''


@functools.lru_cache(maxsize=None)
def common_definitions() -> Mapping[str, Definition]:
    """The parsed common library, by name (parsed once; the AST is never mutated)."""
    items = Reader(_COMMON_GRAMMAR, scan(_COMMON_GRAMMAR), DEFAULT_LIMITS, namespace="common").read_grammar()
    return MappingProxyType({item.name: item for item in items if isinstance(item, Definition)})
