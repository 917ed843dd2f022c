"""xgrammar as an engine under test: its GrammarMatcher for regexes, JSON schemas, its
EBNF and GBNF (its Lark dialect differs, so Lark grammars are not compared)."""
from __future__ import annotations

from typing import Optional, Sequence

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class XgrammarEngine(Engine):
    """xgrammar's GrammarMatcher on raw token bytes, numpy bitmasks."""

    name = "xgrammar"
    description = "xgrammar GrammarMatcher, raw token bytes, numpy bitmasks"
    kinds: Sequence[str] = session.KINDS
    known_differences = KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import numpy  # noqa: F401
            import xgrammar  # noqa: F401
        except ImportError as e:
            return "xgrammar is not importable (%s); it needs torch: pip install xgrammar" % e
        except Exception as e:  # xgrammar fails in odd ways without its native pieces
            return "xgrammar is not usable: %s" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "xgrammar %s" % version("xgrammar")

    def prepare(self, vocab: Vocabulary) -> None:
        """The compiler for the vocabulary, built before the session's child is forked."""
        session.compiler(vocab)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
