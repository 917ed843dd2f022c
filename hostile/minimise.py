"""Minimising a finding: the smallest input left that breaks the property *the same way*
(the same signature, hostile/findings.py), by deleting chunks of bytes — halves, then
quarters, down to single bytes — and keeping each deletion that keeps the signature
(Zeller's delta debugging, its deletion half), within a time budget.

    python -m hostile minimise TARGET FILE [--seconds N]

A campaign minimises each finding this way in a child process (a finding can be a hang);
the result is the regression input to commit (hostile/regressions/<target>/<name>).

>>> from hostile.targets import Target
>>> from hostile.property import check
>>> def run(data):
...     check(lambda: {}[data] if b"!!" in data else None)
>>> t = Target("t", "a lookup", run, lambda: [])
>>> minimise(t, b"abc!!defgh!", seconds=5)
b'!!'
"""
from __future__ import annotations

import time
from typing import Optional

from .findings import signature
from .targets import Target


def signature_on(target: Target, data: bytes) -> Optional[str]:
    """The signature of the way the target breaks the property on data, or None."""
    try:
        target.run(data)
    except Exception as e:
        return signature(e)
    return None


def minimise(target: Target, data: bytes, seconds: float = 30.0) -> bytes:
    """The smallest input found within `seconds` that breaks the property as data does
    (data itself if it does not)."""
    want = signature_on(target, data)
    if want is None:
        return data
    end = time.monotonic() + seconds
    chunk = max(1, len(data) // 2)
    while chunk >= 1 and time.monotonic() < end:
        i = 0
        changed = False
        while i < len(data) and time.monotonic() < end:
            candidate = data[:i] + data[i + chunk:]
            if candidate != data and signature_on(target, candidate) == want:
                data, changed = candidate, True
            else:
                i += chunk
        if not changed:
            if chunk == 1:
                break
            chunk //= 2
    return data
