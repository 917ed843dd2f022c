"""outlines-core as an engine under test: regexes and JSON schemas (through its
schema-to-regex compiler); Lark grammars are unsupported."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class OutlinesCoreEngine(Engine):
    """outlines-core's Index for regexes and JSON schemas."""

    name = "outlines-core"
    description = "outlines-core Index over the same token bytes (regex, JSON schema)"
    kinds = ("regex", "json_schema")
    known_differences = KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import outlines_core  # noqa: F401
        except ImportError:
            return "outlines-core is not installed (pip install outlines-core)"
        return None

    def version(self) -> str:
        try:
            from importlib.metadata import version

            return "outlines-core %s" % version("outlines-core")
        except Exception:
            return "outlines-core"

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
