"""Known differences of an audited setup: what a running engine may do that the
conformance suite's own runs of it rule out by their configuration, declared like a
peer's (conformance/differences.py) and tried before the peer's.

llguidance's forcing: the suite runs llguidance with `no_forcing` (its masks are then the
full set, as maskref's); a deployment leaves forcing on (llguidance's default, vLLM's
guidance backend), and where the grammar forces bytes llguidance's mask holds only the
token its tokenizer spells them with.
"""
from __future__ import annotations

from typing import Dict, Sequence

from ..differences import KnownDifference, KnownDifferences
from ..divergence import Divergence

LLGUIDANCE = KnownDifferences()


@LLGUIDANCE.declare(
    "forced-canonical-token", "semantic",
    "with forcing on (llguidance's default; the conformance suite runs it with no_forcing), "
    "where the grammar forces bytes llguidance's mask allows only the tokens its tokenizer "
    "would spell them with; maskref's mask allows every token that spells a beginning of "
    "them")
def forced_canonical_token(d: Divergence) -> bool:
    """llguidance allows less than refimpl, something still, and where refimpl's state
    forces bytes: every token llguidance allows spells a beginning of the forced bytes
    (or the forced bytes and more)."""
    if d.only_engine or not d.only_refimpl or d.error is not None or d.refused is not None:
        return False
    m = d.replay()
    if m is None or m.eos_consumed:
        return False
    forced = m.forced_bytes()
    engine = set(m.mask().allowed()) - set(d.only_refimpl)
    if not forced or not engine:
        return False
    eos = set(d.vocab.eos_token_ids)
    return all(t not in eos and _consistent(d.vocab.tokens[t], forced) for t in engine)


def _consistent(token: bytes, forced: bytes) -> bool:
    return bool(token) and (forced.startswith(token) or token.startswith(forced))


#: the differences of an audited setup, by the conformance engine's name
BY_ENGINE: Dict[str, Sequence[KnownDifference]] = {"llguidance": LLGUIDANCE}


def audit_differences(engine: str) -> Sequence[KnownDifference]:
    """The known differences an audit of `engine` tries before the engine's own."""
    return BY_ENGINE.get(engine, ())
