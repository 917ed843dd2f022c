"""The rest of the Matcher's API, compared where the engine is refimpl's Matcher.

Masks are what every engine answers; refimpl's own backends (`native`, `pypy`, `index`,
any `cmd:` worker speaking docs/protocol.md) answer the whole Matcher API, and mutation
testing (tools/mutation.py) found bugs that masks alone never show: forced bytes and
tokens, whether the output may end, rollback. For those backends `run` and `fuzz` also
compare, after every token, `is_accepting()`, `forced_bytes()` and `forced_tokens()`, and
`fuzz` rolls both back by a drawn number of steps at the end of a path and compares the
masks (and that rolling back past the start is refused by both). `run` offers every engine
built on refimpl (the token index's own API too) ids outside the vocabulary before each
mask: each must be refused, as refimpl's Matcher refuses it.

A difference is a disagreement like a mask's (`Divergence.error` says which call). A
fault of the engine's process (isolation.fault_of: a worker that died, hung or answered
garbage) is not a difference: it is raised, for the caller to record as that fault.
"""
from __future__ import annotations

from typing import Any, Optional

from refimpl import Matcher

from .engine import Engine, Session
from .isolation import fault_of

#: the calls compared after every token, in this order
CALLS = ("is_accepting", "forced_bytes", "forced_tokens")


def api_of(engine: Engine, session: Session) -> Optional[Any]:
    """The Matcher behind a session of refimpl's own backends (not refimpl's python
    walker itself: the reference), else None."""
    from .refimpl_engines import MatcherSession

    if engine.name == "refimpl" or not isinstance(session, MatcherSession):
        return None
    return session.m


def api_difference(ref: Matcher, other: Any) -> Optional[str]:
    """The first of CALLS on which `other` answers unlike `ref` (a raise counts), or None.

    >>> from refimpl import Grammar, Vocabulary
    >>> v = Vocabulary.from_bytes([b"a", b"b", b"ab", b"<eos>"], eos_token_id=3)
    >>> g = Grammar.from_regex("abb")
    >>> ref, other = Matcher(g, v), Matcher(g, v)
    >>> api_difference(ref, other) is None, ref.forced_tokens()
    (True, [2, 1])
    >>> other.consume(0) and api_difference(ref, other)
    "forced_bytes: the engine answers b'bb', refimpl b'abb'"
    """
    for name in CALLS:
        want = getattr(ref, name)()
        try:
            got = getattr(other, name)()
        except Exception as e:  # noqa: BLE001 - a crash is a difference
            if fault_of(e):  # the process failed: not an answer to compare
                raise
            return "%s: the engine raised %s: %s" % (name, type(e).__name__, e)
        if _plain(got) != _plain(want):
            return "%s: the engine answers %r, refimpl %r" % (name, _plain(got), _plain(want))
    return None


def out_of_range_difference(session: Session, n_tokens: int) -> Optional[str]:
    """Offer the session ids outside the vocabulary: -1 (which Python's indexing reads as
    the last token), `n_tokens` and the one after it (a model's logits are often padded past
    the vocabulary). Each must be refused as refimpl's Matcher refuses it — consume answers
    False, raising nothing — and leave the state as it was (the next mask compared shows
    it). None if so.

    >>> from refimpl import Grammar, Vocabulary
    >>> from .refimpl_engines import MatcherSession
    >>> v = Vocabulary.from_bytes([b"a", b"b"])
    >>> out_of_range_difference(MatcherSession(Matcher(Grammar.from_regex("a*"), v)), len(v)) is None
    True
    """
    for t in (-1, n_tokens, n_tokens + 1):
        try:
            took = session.consume(t)
        except Exception as e:  # noqa: BLE001 - a crash is a difference
            if fault_of(e):  # the process failed: not an answer to compare
                raise
            return "consume(%d), an id outside the vocabulary's %d: the engine raised %s: %s" % (
                t, n_tokens, type(e).__name__, e)
        if took:
            return "consume(%d), an id outside the vocabulary's %d: the engine took it" % (t, n_tokens)
    return None


def refused_difference(ref: Matcher, other: Any) -> Optional[str]:
    """Offer both a token refimpl's mask refuses (the longest such ordinary token: it is
    the likeliest to fail after some of its bytes were read): both must refuse it, and
    leave the state as it was (the next mask compared shows it). None if alike."""
    allowed = ref.mask()
    vocab = ref.vocab
    refused = [t for t in range(len(vocab)) if t not in allowed and t not in vocab.special_token_ids]
    if not refused:
        return None
    t = max(refused, key=lambda x: (len(vocab.tokens[x]), -x))
    if ref.consume(t):  # pragma: no cover - refimpl's mask is the definition
        raise AssertionError("refimpl took token %d its mask refuses" % t)
    try:
        took = other.consume(t)
    except Exception as e:  # noqa: BLE001
        if fault_of(e):  # the process failed: not an answer to compare
            raise
        return "consume(%d), a token the mask refuses: the engine raised %s: %s" % (t, type(e).__name__, e)
    if took:
        return "consume(%d): the engine took a token the mask refuses" % t
    if other.mask().to_bytes() != allowed.to_bytes():
        return "consume(%d), refused: the engine's mask changed" % t
    return None


def rollback_difference(ref: Matcher, other: Any, n: int) -> Optional[str]:
    """First `refused_difference`; then roll both back by n steps and compare the masks,
    and check that rolling back past the start is refused as refimpl refuses it
    (ValueError; a worker's error reply of type "ValueError" is raised as one). None if
    alike."""
    wrong = refused_difference(ref, other)
    if wrong is not None:
        return wrong
    try:
        other.rollback(n)
    except Exception as e:  # noqa: BLE001
        if fault_of(e):  # the process failed: not an answer to compare
            raise
        return "rollback(%d): the engine raised %s: %s" % (n, type(e).__name__, e)
    ref.rollback(n)
    want, got = ref.mask().to_bytes(), other.mask().to_bytes()
    if want != got:
        return "rollback(%d): the masks after it differ" % n
    too_far = len(ref._steps) + 1
    try:
        other.rollback(too_far)
    except ValueError:  # refused as refimpl refuses it (a worker's "ValueError" reply is one)
        return None
    except Exception as e:  # noqa: BLE001
        if fault_of(e):  # the process failed: not an answer to compare
            raise
        return "rollback(%d): past the start, the engine raised %s (refimpl: ValueError): %s" % (
            too_far, type(e).__name__, e)
    return "rollback(%d): past the start, the engine did not refuse it" % too_far


def _plain(x: Any) -> Any:
    return list(x) if isinstance(x, (list, tuple)) else x
