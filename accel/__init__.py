"""Optional accelerated backends, checked mask for mask against refimpl.

    native   a C extension for the trie walk (built by `pip install` where a compiler is)
    pypy     refimpl itself under PyPy, in a worker process (docs/protocol.md)
    cmd:...  any program speaking the worker protocol

Importing `accel` registers them in refimpl's backend registry (refimpl/serving/backends.py), so
that `refimpl.open_matcher(g, v, backend="native")` works, and a backend that cannot run
here says why; `available_backends()` says what is usable here and why the others are not.
"""
from __future__ import annotations

from typing import Dict, Optional

from refimpl.serving import backends as _backends


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
    """Register the backends in refimpl.serving.backends (the entry point
    "maskref.backends" of pyproject.toml; importing accel does it too)."""
    if _REASONS:
        return
    _register()


def _register() -> None:
    reason: Optional[str]
    try:
        from . import native
    except ImportError as e:  # the module itself is part of accel; its extension may be missing
        reason = "not importable: %s" % e
    else:
        reason = native.unavailable_reason()
        if reason is None:
            _backends.WALKERS["native"] = native.walk
            _backends.ROW_BUILDERS["native"] = native.closure
    _REASONS["native"] = reason
    if reason is not None:
        _backends.UNAVAILABLE["native"] = reason
    try:
        from . import pypy
    except ImportError as e:
        _REASONS["pypy"] = _backends.UNAVAILABLE["pypy"] = "not importable: %s" % e
    else:  # its availability is checked when asked for (it means starting pypy3)
        _backends.PROCESS_BACKENDS["pypy"] = pypy.matcher
        _backends.PROCESS_BACKENDS["cmd"] = pypy.command_matcher
        _REASONS["cmd:<command>"] = None


_register()
