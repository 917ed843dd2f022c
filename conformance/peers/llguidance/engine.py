"""llguidance as an engine under test: its LLMatcher with `no_forcing` (masks are the full
set, as maskref's) on a tokenizer of the vocabulary's bytes."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class LlguidanceEngine(Engine):
    """llguidance's LLMatcher for regexes, Lark grammars and JSON schemas."""

    name = "llguidance"
    description = "llguidance LLMatcher, no_forcing, tokenizer from the same token bytes"
    known_differences = KNOWN_DIFFERENCES
    #: no GBNF yet: llguidance reads it only through its gbnf_to_lark converter, whose
    #: lexing is a subject of its own (issue 15)
    kinds = ("regex", "lark", "json_schema")

    def unavailable_reason(self) -> Optional[str]:
        try:
            import llguidance  # noqa: F401
        except ImportError:
            return "llguidance is not installed (pip install llguidance, or the 'peers' extra)"
        return None

    def version(self) -> str:
        import llguidance

        return "llguidance %s" % llguidance.get_version() if hasattr(llguidance, "get_version") else "llguidance"

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
