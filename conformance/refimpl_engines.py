"""refimpl itself as an engine under test: its Matcher with one of its backends (the
masks computed another way: docs/backends.md), and the naive oracle.

    refimpl (python), index, native, pypy, cmd:<command>   MatcherEngine
    token-index                                             TokenIndexEngine (regular grammars)
    oracle                                                  OracleEngine (small vocabularies)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from refimpl import Grammar, MatcherLike, Vocabulary, naive_mask, open_matcher
from refimpl.limits import DEFAULT_LIMITS
from refimpl.masks.index import DEAD, NotRegular, Steps, TokenIndex, build_index
from refimpl.masks.slicer import JSON_SLICES

from .engine import Engine, Session
from .vectors import GrammarSpec, NotSupported, ids_of


class MatcherSession(Session):
    """A session on anything with Matcher's mask/consume (and, for processes, close)."""

    def __init__(self, matcher: MatcherLike) -> None:
        self.m = matcher

    def mask(self) -> bytes:
        return self.m.mask().to_bytes()

    def consume(self, token: int) -> bool:
        return self.m.consume(token)

    def close(self) -> None:
        self.m.close()


class MatcherEngine(Engine):
    """refimpl's Matcher with one of its backends: python, index, native, pypy, cmd:<command>.
    Its matchers slice on any vocabulary (JSON_SLICES; a Matcher not told its slices slices
    only large ones: slicer.default_slices), so that the slicer is judged on the suite's
    and the fuzzer's small vocabularies too, against refimpl's masks without it."""

    uses_refimpl = True

    def __init__(self, backend: str = "python") -> None:
        self.backend = backend
        self.name = "refimpl" if backend == "python" else backend
        self.description = "refimpl's Matcher, backend=%r" % backend

    def unavailable_reason(self) -> Optional[str]:
        """Why the backend cannot run here; a `cmd:` worker is started and must answer its
        hello (accel.pypy.start_problem: a worker that cannot start is a setup error, found
        before any vector, not a failure of each)."""
        if self.backend in ("python", "index"):
            return None
        try:
            import accel
        except ImportError as e:
            return "the accel package is not importable: %s" % e
        reasons = accel.available_backends()
        key = "cmd:<command>" if self.backend.startswith("cmd:") else self.backend
        if key not in reasons:
            return "unknown Matcher backend %r (known: %s)" % (self.backend, ", ".join(sorted(reasons)))
        if reasons[key] is None and self.backend.startswith("cmd:"):
            from accel.pypy import start_problem

            problem = start_problem(self.backend)
            return None if problem is None else "its worker cannot start: %s" % problem
        return reasons[key]

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        """A session of the backend; without `grammar` (an error vector's, which refimpl
        refuses here), a process backend's worker is sent the grammar's text to compile
        itself (and refuse: its typed error is raised here as refimpl's), an in-process
        backend compiles it here."""
        chosen: Any = grammar
        if chosen is None:
            chosen = spec.compile() if self.backend in ("python", "index", "native") else GrammarText(spec)
        try:
            return MatcherSession(open_matcher(chosen, vocab, backend=self.backend, slices=JSON_SLICES))
        except NotRegular as e:
            raise NotSupported("no token index: %s" % e) from None
        except Exception as e:
            if _worker_unsupported(e):  # a worker without this grammar kind: not a disagreement
                raise NotSupported(str(e)) from None
            raise


class GrammarText:
    """A grammar as its text, not compiled: what a worker is sent (accel/worker/specs.py
    reads `kind`, `source`, `options` and `limits`), so that the worker compiles it."""

    def __init__(self, spec: GrammarSpec) -> None:
        self.kind, self.source = spec.kind, spec.source
        self.options: Dict[str, Any] = dict(spec.options)
        self.limits = DEFAULT_LIMITS

    def __repr__(self) -> str:
        return "GrammarText(%s)" % self.kind


def _worker_unsupported(error: Exception) -> bool:
    """Is this a worker's refusal of what it does not support (accel.worker.WorkerUnsupported)?"""
    try:
        from accel.worker import WorkerUnsupported
    except ImportError:
        return False
    return isinstance(error, WorkerUnsupported)


class TokenIndexSession(Session):
    """A generation on a token index's own API only: the state starts at `index.start`, a
    mask is `index.mask(state)` (EOS where the state is final), a token moves it by
    `index.next_state` — DEAD for a token the state does not allow, which is refused, but for
    EOS where the state is final (nothing follows it: DEAD is the state after it)."""

    def __init__(self, index: TokenIndex) -> None:
        self.index = index
        self.state = index.start

    def mask(self) -> bytes:
        return self.index.mask(self.state).to_bytes()

    def consume(self, token: int) -> bool:
        target = self.index.next_state(self.state, token)
        if target == DEAD and not (token in self.index.eos_token_ids and self.index.is_final(self.state)):
            return False
        self.state = target
        return True


#: the token-index engine's build: every step, the rows by two processes
PARALLEL = Steps(workers=2)
#: the token-index-bare engine's: every step off (one process)
BARE = Steps(dead_bytes=False, byte_classes=False, prefix_graph=False, muted_literals=False)


class TokenIndexEngine(Engine):
    """refimpl's token index (masks/index/, docs/token-index.md) through its own API —
    `TokenIndex.mask`, `next_state`, `is_final` — not the Matcher's index backend, which reads
    the rows itself; each index made by `build(grammar, vocab)` once per grammar and
    vocabulary of a run. Regular grammars only (NotSupported otherwise, with the reason).

    Three builds are engines (registry.py): every step, the rows made by two processes
    (step 4, the parallel build: forked per build, since the DFA must be complete before the
    processes start) — `token-index`; every step off — `token-index-bare`, the construction
    the steps speed up; and the index by definition (`naive_index`) — `token-index-naive`.
    They must answer alike: each step only saves work."""

    uses_refimpl = True

    def __init__(self, name: str = "token-index",
                 build: Callable[[Grammar, Vocabulary], TokenIndex] = lambda g, v: build_index(g, v, PARALLEL),
                 description: str = "refimpl's TokenIndex by its own API (mask, next_state), built by 2 processes"
                 ) -> None:
        self.name, self.build, self.description = name, build, description
        #: (grammar, vocab) -> its index, the pair kept so that the ids stay theirs
        self._built: Dict[Tuple[int, int], Tuple[Grammar, Vocabulary, TokenIndex]] = {}

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        chosen = grammar if grammar is not None else spec.compile()
        key = (id(chosen), id(vocab))
        if key not in self._built:
            try:
                self._built[key] = (chosen, vocab, self.build(chosen, vocab))
            except NotRegular as e:
                raise NotSupported("no token index: %s" % e) from None
        return TokenIndexSession(self._built[key][2])

    def close(self) -> None:
        self._built.clear()


class OracleSession(Session):
    """The tokens consumed so far; each mask is the naive one after all of them (EOS
    included: after an EOS that ended the output it is empty, after one that ended a
    `stop=""` lexeme generation goes on)."""

    def __init__(self, grammar: Grammar, vocab: Vocabulary) -> None:
        self.grammar, self.vocab = grammar, vocab
        self.path: List[int] = []

    def mask(self) -> bytes:
        return naive_mask(self.grammar, self.vocab, self.path).to_bytes()

    def consume(self, token: int) -> bool:
        if token not in ids_of(self.mask()):
            return False
        self.path.append(token)
        return True


class OracleEngine(Engine):
    """refimpl's naive mask (oracle.py): one recogniser run per token per step."""

    name = "oracle"
    uses_refimpl = True
    description = "refimpl.masks.oracle.naive_mask, the definition (slow: small vocabularies only)"
    max_vocab = 2000

    def start(self, spec: GrammarSpec, vocab: Vocabulary, grammar: Optional[Grammar] = None) -> Session:
        if len(vocab) > self.max_vocab:
            raise NotSupported("the naive oracle is for vocabularies of at most %d tokens" % self.max_vocab)
        return OracleSession(grammar or spec.compile(), vocab)
