"""kbnf as an engine under test: its Engine for grammars in its own EBNF dialect."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class KbnfEngine(Engine):
    """kbnf's Engine for grammars in its own dialect (ebnf vectors with dialect kbnf)."""

    name = "kbnf"
    description = "kbnf Engine (its EBNF dialect), tokens from the same bytes"
    kinds = ("ebnf",)
    known_differences = KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import kbnf  # noqa: F401
        except ImportError as e:
            return "kbnf is not importable (%s): pip install kbnf" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "kbnf %s" % version("kbnf")

    def prepare(self, vocab: Vocabulary) -> None:
        """Build kbnf's vocabulary before a session's process is forked (it inherits it)."""
        session.vocabulary(vocab)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
