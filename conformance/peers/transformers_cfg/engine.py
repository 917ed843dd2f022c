"""transformers-cfg as an engine under test: its IncrementalGrammarConstraint for GBNF
grammars (its EBNF is llama.cpp's GBNF, read by its own parser). The registry imports it
only when asked for (transformers-cfg pulls in torch and transformers) and runs it in a
child process."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class TransformersCfgEngine(Engine):
    """transformers-cfg's IncrementalGrammarConstraint for GBNF grammars."""

    name = "transformers-cfg"
    description = "transformers-cfg IncrementalGrammarConstraint (its GBNF-like EBNF), HF tokenizer of the same bytes"
    kinds = ("gbnf",)
    known_differences = KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import tokenizers  # noqa: F401
            import torch  # noqa: F401
            import transformers  # noqa: F401
            import transformers_cfg  # noqa: F401
        except ImportError as e:
            return "transformers-cfg is not importable (%s): pip install transformers-cfg" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "transformers-cfg %s (transformers %s)" % (version("transformers-cfg"), version("transformers"))

    def prepare(self, vocab: Vocabulary) -> None:
        """Build the tokenizer and trie before a session's process is forked."""
        session.peer(vocab)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
