"""Optional accelerated backends, checked mask for mask against refimpl.

    native   a C extension for the trie walk (built by `pip install` where a compiler is)
    pypy     refimpl itself under PyPy, in a worker process (docs/protocol.md)
    cmd:...  any program speaking the worker protocol

Importing `accel` registers the usable ones with refimpl's Matcher, so that
`Matcher(g, v, backend="native")` works; `available_backends()` says what is usable here
and why the others are not.
"""
from __future__ import annotations

from typing import Dict, Optional

from refimpl import matcher as _matcher


def available_backends() -> Dict[str, Optional[str]]:
    """Every backend name -> None if usable here, else the reason it is not.

    (Checking "pypy" starts pypy3 once, so it is done here, not at import.)
    """
    out: Dict[str, Optional[str]] = {"python": None}
    out.update(_REASONS)
    if "pypy" not in out:
        try:
            from . import pypy
        except ImportError as e:
            out["pypy"] = "not importable: %s" % e
        else:
            out["pypy"] = pypy.unavailable_reason()
    return out


_REASONS: Dict[str, Optional[str]] = {}


def register() -> None:
    """Register the usable backends with refimpl's Matcher (the entry point
    "maskref.backends" of pyproject.toml; importing accel does it too)."""
    if _REASONS:
        return
    _register()


def _register() -> None:
    try:
        from . import native
    except ImportError as e:  # the module itself is part of accel; its extension may be missing
        _REASONS["native"] = "not importable: %s" % e
    else:
        _REASONS["native"] = native.unavailable_reason()
        if _REASONS["native"] is None:
            _matcher.WALKERS["native"] = native.walk
    try:
        from . import pypy
    except ImportError as e:
        _REASONS["pypy"] = "not importable: %s" % e
    else:  # its availability is checked when asked for (it means starting pypy3)
        _matcher.PROCESS_BACKENDS["pypy"] = pypy.matcher
        _matcher.PROCESS_BACKENDS["cmd"] = pypy.command_matcher
        _REASONS["cmd:<command>"] = None


_register()
