"""One step of a differential comparison: refimpl's mask against an engine's, the
difference classified, then one token consumed by the engine.

The runner (refimpl's masks recorded in a vector) and the fuzzer (refimpl's Matcher
live) both go through `compare_step`, so a step is judged the same way by both.

An engine's bits beyond the vocabulary (the padding of the last 32-bit word, or a longer
bitmask) name no token: they are cleared before comparing, never a finding
(docs/conformance.md).

>>> from .vectors import bitmask_from_ids
>>> diff(bitmask_from_ids([1, 2], 10), bitmask_from_ids([2, 3], 10))
([3], [1])
>>> diff(bitmask_from_ids([1], 10), bitmask_from_ids([1, 12, 31], 32)[:4], n_tokens=10)
([], [])
"""
from __future__ import annotations

import time
from typing import Any, Callable, List, Optional, Tuple

from refimpl import Vocabulary

from .differences import KnownDifference
from .divergence import Divergence
from .engine import Engine, Session
from .isolation import fault_of
from .vectors import GrammarSpec, NotSupported, ids_of


def diff(expected: bytes, got: bytes, n_tokens: Optional[int] = None) -> Tuple[List[int], List[int]]:
    """(ids only in got, ids only in expected), ids from n_tokens on left out."""
    a = int.from_bytes(expected, "little")
    b = int.from_bytes(got[:len(expected)].ljust(len(expected), b"\0"), "little")
    if n_tokens is not None:
        b &= (1 << n_tokens) - 1
    return ids_of((b & ~a).to_bytes(len(expected), "little")), ids_of((a & ~b).to_bytes(len(expected), "little"))


def allows(bitmask: bytes, token: int) -> bool:
    return bool(bitmask[token >> 3] >> (token & 7) & 1)


class Path:
    """Where a comparison stands: the grammar, the vocabulary, the tokens consumed."""

    def __init__(self, spec: GrammarSpec, vocab: Vocabulary) -> None:
        self.spec = spec
        self.vocab = vocab
        self.tokens: List[int] = []

    def divergence(self, only_engine: Optional[List[int]] = None, only_refimpl: Optional[List[int]] = None,
                   **details: Any) -> Divergence:
        """A divergence at the current step (step i comes after i tokens)."""
        return Divergence(self.spec, self.vocab, self.tokens, len(self.tokens), only_engine or [],
                          only_refimpl or [], **details)


class StepOutcome:
    """What one step showed. `divergence` is set on a disagreement (the comparison ends),
    `unsupported` when the engine gave up (it ends too), `token` when the path goes on.
    A crash of the engine's mask is a disagreement unless a known difference names it
    (the comparison ends either way); `fault` says when the error was a fault of the
    engine's process (isolation.fault_of: "crash", "timeout", "malformed", "memory")."""

    def __init__(self) -> None:
        self.compared = False  # the engine gave a mask
        self.agree = False  # ... equal to refimpl's
        self.known: List[KnownDifference] = []  # differences explained, in order met
        self.divergence: Optional[Divergence] = None
        self.unsupported: Optional[str] = None
        self.token: Optional[int] = None  # the token both consumed
        self.refused: Optional[int] = None  # the token the engine's consume refused
        self.mask: Optional[bytes] = None  # the engine's mask (before the token consumed)
        self.mask_ns = 0  # the time of the engine's mask call (time.perf_counter_ns)
        self.under = False  # the engine's mask allowed a token refimpl's refuses
        self.over = False  # ... refused a token refimpl's allows
        self.fault = ""  # the engine's process failed (isolation.fault_of), or ""

    def explain(self, engine: Engine, d: Divergence) -> bool:
        """Record d as a known difference, or as the disagreement; True if known."""
        k = engine.classify(d)
        if k is None:
            self.divergence = d
            return False
        self.known.append(k)
        return True


def compare_step(engine: Engine, session: Session, path: Path, expected: bytes, accepting: bool,
                 choose: Callable[[bytes], Optional[int]]) -> StepOutcome:
    """Compare the session's mask with refimpl's `expected` (the state accepting or not),
    then consume the token `choose(engine's mask)` picks (None: the path ends here).
    A consumed token is appended to path.tokens."""
    out = StepOutcome()
    t0 = time.perf_counter_ns()
    try:
        got = session.mask()
    except NotSupported as e:  # e.g. a peer's resource limit
        out.unsupported = str(e)
        return out
    except Exception as e:  # noqa: BLE001 - any crash of the engine is a finding (unless a known one)
        out.fault = fault_of(e)
        out.explain(engine, path.divergence(error="mask: %s: %s" % (type(e).__name__, e), accepting=accepting,
                                             note=session.note))
        return out
    out.mask_ns = session.last_mask_ns if session.last_mask_ns is not None else time.perf_counter_ns() - t0
    out.compared = True
    out.mask = got
    only_b, only_r = ([], []) if got == expected else diff(expected, got, len(path.vocab))
    out.agree = not only_b and not only_r
    out.under, out.over = bool(only_b), bool(only_r)
    if not out.agree:
        if not out.explain(engine, path.divergence(only_b, only_r, accepting=accepting, note=session.note)):
            return out
        if out.known[-1].ends_path:  # the engines may have read the text differently: stop here
            return out
    t = choose(got)
    if t is None:
        return out
    try:
        ok = session.consume(t)
    except Exception as e:  # noqa: BLE001
        out.fault = fault_of(e)
        out.divergence = path.divergence(error="consume: %s: %s" % (type(e).__name__, e), accepting=accepting,
                                         note=session.note)
        return out
    if ok:
        path.tokens.append(t)
        out.token = t
    else:  # refused: the path ends, as a known difference or a disagreement
        out.refused = t
        out.explain(engine, path.divergence(refused=t, accepting=accepting, note=session.note))
    return out
