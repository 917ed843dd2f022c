"""Backends by name, and `open_matcher`, the one way to get a matcher for one.

    m = open_matcher(grammar, vocab)                      # refimpl's Matcher, Python walker
    m = open_matcher(grammar, vocab, backend="index")     # the same Matcher, a token index (regular grammars)
    m = open_matcher(grammar, vocab, backend="native")    # the same Matcher, the C walker
    m = open_matcher(grammar, vocab, backend="pypy")      # refimpl under PyPy, in a worker
    m = open_matcher(grammar, vocab, backend="cmd:/path/to/engine --flag")  # any worker

Two kinds of backend (docs/backends.md):

- an in-process *walker* (`WALKERS`): a function with the signature of tokens.walk.walk;
  open_matcher returns a refimpl `Matcher` that uses it;
- a *process backend* (`PROCESS_BACKENDS`): a factory(grammar, vocab, backend=..., **options)
  returning an object with the Matcher's API (`MatcherLike`), e.g. a client of a worker
  speaking docs/protocol.md. "cmd:<command>" is looked up as "cmd".

Backends beyond "python" come from installed packages that declare an entry point in the
group "maskref.backends" (maskref's own `accel` does): loading it registers them. refimpl
itself imports none of them. Why a plugin failed to load, or why a backend it knows is not
usable here, is recorded and shown when that backend is asked for.

>>> from refimpl import Grammar, Vocabulary
>>> m = open_matcher(Grammar.from_regex("ab"), Vocabulary.from_bytes([b"a", b"b"]))
>>> type(m).__name__, m.backend, m.mask().allowed()
('Matcher', 'python', [0])
>>> UNAVAILABLE["example"] = "example: needs a GPU"
>>> open_matcher(Grammar.from_regex("ab"), Vocabulary.from_bytes([b"a"]), backend="example")
Traceback (most recent call last):
...
ValueError: backend 'example' is not available here: example: needs a GPU
>>> del UNAVAILABLE["example"]
"""
from __future__ import annotations

from typing import Any, Callable, Dict

from ..frontends.grammar import Grammar
from ..masks.matcher import Matcher, MatcherLike
from ..masks.walk import walk
from ..tokens.vocab import Vocabulary

#: In-process backends: name -> a walk function with the signature of tokens.walk.walk
#: (trie, lexer, parser hooks (advance, restart), lexer state, parser top, allowed flags) -> nodes walked.
WALKERS: Dict[str, Callable[..., int]] = {"python": walk}
#: In-process backends' faster equals of refimpl.recognition.earley.closure (the Earley row
#: build): name -> a function with its arguments and answers, or None where it leaves the
#: row to `closure` (`Parser.row_builder`; accel/_native.c's for "native").
ROW_BUILDERS: Dict[str, Callable[..., Any]] = {}
#: Process backends: name -> factory(grammar, vocab, backend=name, **options) -> MatcherLike.
PROCESS_BACKENDS: Dict[str, Callable[..., MatcherLike]] = {}
#: Backends a plugin knows but cannot offer here: name -> why (e.g. "native: extension not built").
UNAVAILABLE: Dict[str, str] = {}
#: Plugins (entry points of "maskref.backends") that failed to load: name -> the error.
PLUGIN_ERRORS: Dict[str, str] = {}

ENTRY_POINT_GROUP = "maskref.backends"


def open_matcher(grammar: Grammar, vocab: Vocabulary, *, backend: str = "python", **options: Any) -> MatcherLike:
    """A matcher for `grammar` over `vocab`, its masks computed by `backend`.

    `options` go to the Matcher (`limits`, `slices`) or to the process backend's factory
    (also `timeout`, `reuse`, ... : accel/pypy.py). Raises ValueError naming the reason
    when the backend is unknown or not usable here.
    """
    if backend == "index":  # refimpl's own, like "python": the Matcher builds the index
        return Matcher(grammar, vocab, backend=backend, **options)
    _load_plugins(backend)
    factory = PROCESS_BACKENDS.get(_registry_name(backend))
    if factory is not None:
        return factory(grammar, vocab, backend=backend, **options)
    walker = WALKERS.get(backend)
    if walker is None:
        raise ValueError(unavailable_message(backend))
    return Matcher(grammar, vocab, backend=backend, walker=walker, row_builder=ROW_BUILDERS.get(backend), **options)


def unavailable_message(backend: str) -> str:
    """Why `backend` cannot be opened: the reason its plugin recorded, or the plugins that
    failed to load, and the backends that are available."""
    reason = UNAVAILABLE.get(_registry_name(backend)) or UNAVAILABLE.get(backend)
    if reason is not None:
        return "backend %r is not available here: %s" % (backend, reason)
    message = "backend %r is not available here (available: %s; see accel.available_backends())" % (
        backend, ", ".join(sorted(WALKERS) + sorted(PROCESS_BACKENDS)))
    if PLUGIN_ERRORS:
        message += "; backend plugins that failed to load: " + "; ".join(
            "%s: %s" % item for item in sorted(PLUGIN_ERRORS.items()))
    return message


def _registry_name(backend: str) -> str:
    return backend.split(":")[0]


def _load_plugins(backend: str) -> None:
    """Load the entry points of the group "maskref.backends" unless `backend` is already
    registered; a plugin that raises is recorded in PLUGIN_ERRORS, not raised (a broken
    optional backend must not break refimpl)."""
    if backend in WALKERS or _registry_name(backend) in PROCESS_BACKENDS:
        return
    from importlib.metadata import entry_points

    found: Any = entry_points()
    group = found.select(group=ENTRY_POINT_GROUP) if hasattr(found, "select") else found.get(ENTRY_POINT_GROUP, ())
    for ep in group:
        try:
            ep.load()()
        except Exception as e:
            PLUGIN_ERRORS[ep.name] = "%s: %s" % (type(e).__name__, e)
        else:
            PLUGIN_ERRORS.pop(ep.name, None)

