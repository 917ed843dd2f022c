"""lm-format-enforcer as an engine under test: its TokenEnforcer for regexes and JSON
schemas, on the tokens' decoded strings. The registry imports it only when asked for and
runs it in a child process."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class LmFormatEnforcerEngine(Engine):
    """lm-format-enforcer's TokenEnforcer for regexes and JSON schemas."""

    name = "lm-format-enforcer"
    description = "lm-format-enforcer TokenEnforcer (RegexParser, JsonSchemaParser) on the tokens' decoded strings"
    kinds = session.KINDS
    known_differences = KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import lmformatenforcer  # noqa: F401
        except ImportError as e:
            return "lm-format-enforcer is not importable (%s): pip install lm-format-enforcer" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "lm-format-enforcer %s" % version("lm-format-enforcer")

    def prepare(self, vocab: Vocabulary) -> None:
        """Build the tokenizer data (its prefix tree) before a session's process is forked."""
        session.tokenizer_data(vocab)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
