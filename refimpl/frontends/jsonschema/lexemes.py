"""The lexemes of the JSON's punctuation — `[`, `{`, the item and key separators — in the
IR, in the JSON's lexeme class (scalars get theirs in compiler.py, keys in objects.py).

>>> from refimpl.frontends.jsonschema.compiler import compiler_for
>>> c = compiler_for({}, key_separator=": ?")
>>> [c.comp.ir.lexemes[~x].name for x in (c.lexemes.literal("["), c.lexemes.separator("key_separator"))]
['"["', '/: ?/']
"""
from __future__ import annotations

import json
from typing import Dict

from ...errors import RegexError, SchemaError
from ...regex import compile_pattern
from .compilation import Compilation


class Lexemes:
    """Lexemes added to the compilation's IR, in its lexeme class."""

    def __init__(self, comp: Compilation) -> None:
        self.comp = comp
        self.ir = comp.ir
        self.es = comp.es
        self._separators: Dict[str, int] = {}

    def add(self, name: str, expr: int) -> int:
        """The lexeme of `expr` (the IR shares equal ones)."""
        return self.ir.add_lexeme(name, expr, lexeme_class=self.comp.lexeme_class)

    def literal(self, text: str) -> int:
        """The lexeme of exactly `text`."""
        return self.add(json.dumps(text, ensure_ascii=False), self.es.literal(text.encode("utf-8")))

    def separator(self, which: str) -> int:
        """The lexeme of the option `which` (item_separator, key_separator): a regex."""
        sym = self._separators.get(which)
        if sym is None:
            pattern = self.comp.options[which]
            try:
                expr = compile_pattern(self.es, pattern)
            except RegexError as e:
                raise SchemaError("invalid %s regex %r: %s" % (which, pattern, e.message), "/x-guidance/" + which) from None
            name = json.dumps(pattern) if self.es.literal(pattern.encode()) == expr else "/%s/" % pattern
            sym = self._separators[which] = self.add(name, expr)
        return sym
