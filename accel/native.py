"""The "native" backend: refimpl's trie walk in C (accel/_native.c).

`walk` has the signature and the results of refimpl.masks.walk.walk — the same masks,
the same callbacks into the lexer and the parser, the same count of nodes walked — and
is checked against it by tests/accel/test_native.py. One difference: where the parser is
refimpl's Recognizer and its hook would only place a row pushed before (recognizer.py's
short path, `Recognizer.short_path`), the C walk does that itself instead of calling the
hook — the same rows placed, the same counts. The extension is built by `pip install`
(setup.py) on CPython where a C compiler is found; otherwise this module still imports
and `unavailable_reason()` says why the backend cannot be used.
"""
from __future__ import annotations

import importlib.util
import platform
from types import ModuleType
from typing import Any, Callable, NoReturn, Optional

_REASON: Optional[str] = None
_native: Optional[ModuleType]
try:
    from . import _native
except ImportError as e:  # not built (no compiler at install time, PyPy, a plain checkout)
    _native = None
    if platform.python_implementation() != "CPython":
        _REASON = "native: a CPython extension, not built on %s (use the pypy backend)" % (
            platform.python_implementation())
    elif importlib.util.find_spec(__package__ + "._native") is None:
        _REASON = "native: extension not built (no C compiler at install time?)"
    else:  # built, but it does not load (for another Python version?)
        _REASON = "native: extension accel._native does not load: %s" % e


def unavailable_reason() -> Optional[str]:
    """None if the C walker is usable here, else why not."""
    return _REASON


def _unavailable(*args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError(_REASON)


#: walk(trie, lexer, parser, state, top, allowed) -> nodes walked
walk: Callable[..., int] = _native.walk if _native is not None else _unavailable
#: closure(tables, rows, j, seeds, transitive) -> (items, waiting, allowed, accepting) or
#: None: refimpl.recognition.earley.closure in C (the Earley row build), None where it
#: leaves the row to that function; a parser's `row_builder`
closure: Callable[..., Any] = _native.closure if _native is not None else _unavailable
