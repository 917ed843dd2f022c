"""llama.cpp as an engine under test: its grammar sampler for GBNF grammars, and for JSON
schemas through llama-cpp-python's converter. llama.cpp aborts the process on some inputs
(a vocabulary with two tokens of the same text: GGML_ASSERT), so the registry runs it in a
child process (conformance/isolation.py). Optional: llama-cpp-python builds from source
(about 25 minutes on two cores), so it is not in CI (docs/findings.md records a run)."""
from __future__ import annotations

from typing import Optional

from refimpl import Grammar, Vocabulary

from ...engine import Engine, Session
from ...vectors import GrammarSpec
from . import session
from .differences import KNOWN_DIFFERENCES


class LlamaCppEngine(Engine):
    """llama.cpp's grammar sampler on a vocab-only GGUF of the same token bytes."""

    name = "llama.cpp"
    description = "llama.cpp's grammar sampler (llama-cpp-python), vocab-only GGUF of the same bytes"
    kinds = ("gbnf", "json_schema")
    known_differences = KNOWN_DIFFERENCES

    def unavailable_reason(self) -> Optional[str]:
        try:
            import gguf  # noqa: F401
            import llama_cpp  # noqa: F401
        except ImportError as e:
            return "llama-cpp-python or gguf is not importable (%s): pip install llama-cpp-python gguf" % e
        return None

    def version(self) -> str:
        from importlib.metadata import version

        return "llama-cpp-python %s" % version("llama-cpp-python")

    def prepare(self, vocab: Vocabulary) -> None:
        """Load the vocabulary before a session's process is forked (it inherits it)."""
        session.model(vocab)

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        return session.start(spec, vocab)
