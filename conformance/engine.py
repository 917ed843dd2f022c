"""An engine under test: what every adapter implements (refimpl with one of its backends,
the naive oracle, an injected fault, or a peer library).

An `Engine` starts a `Session` for (grammar spec, vocabulary); a session gives its full
mask as a bitmask (llguidance's layout, vectors.bitmask_from_ids) and consumes tokens.
An engine declares its known differences (conformance/differences.py), and tells a
divergence it explains from a disagreement with `classify`.

("Backend" in conformance once named this; in refimpl a backend is one way the Matcher
computes masks, `open_matcher(backend=...)`, and an engine may be refimpl with one.)
"""
from __future__ import annotations

from typing import Optional, Sequence

from refimpl import Grammar, Vocabulary

from .differences import KnownDifference, classify
from .divergence import Divergence
from .vectors import GrammarSpec


class Session:
    """One generation: the engine's state after the tokens consumed so far."""

    #: a remark about the last mask that known differences may use (e.g. llguidance's
    #: stop reason when it gave up), or None
    note: Optional[str] = None
    #: the engine's own time of its start and of its last mask call (ns), where the session
    #: measures them nearer the engine than its caller can (a session in a child process:
    #: the round trip left out); None: the caller times the call itself
    start_ns: Optional[int] = None
    last_mask_ns: Optional[int] = None

    def mask(self) -> bytes:
        raise NotImplementedError

    def consume(self, token: int) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        pass


class Engine:
    name = "?"
    description = ""
    #: grammar kinds this engine can run at all
    kinds: Sequence[str] = ("regex", "lark", "json_schema", "gbnf", "ebnf")
    known_differences: Sequence[KnownDifference] = ()
    #: built on refimpl: the runner hands start() refimpl's compiled grammar
    uses_refimpl = False

    def unavailable_reason(self) -> Optional[str]:
        """None when the engine can run here, else why not (e.g. not installed)."""
        return None

    def version(self) -> str:
        return ""

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        """A session at the start of the grammar. `grammar` is refimpl's compiled grammar
        for spec (engines built on refimpl reuse it). Raises NotSupported."""
        raise NotImplementedError

    def classify(self, d: Divergence) -> Optional[KnownDifference]:
        """The known difference that explains d, or None (differences.classify)."""
        return classify(self.known_differences, d)

    def close(self) -> None:
        pass
