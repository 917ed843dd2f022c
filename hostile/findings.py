"""Findings: the inputs on which a target broke the property, one per kind of break.

Fuzzing meets the same bug many times, through many inputs. A finding's *signature* says
which bug it is — what went wrong and where: the exception and the innermost frame of the
project's code it was raised in (`KeyError at refimpl/regex/reader.py:123 in read_group`);
`took more than 10 s` for an input over the time bound; a libFuzzer `timeout`,
`out-of-memory` or `deadly signal` when the child process itself was stopped. `Findings`
keeps the shortest input of each signature (the best start for a minimised regression
input), saved as `<directory>/<sha1 of the bytes, 12 hex>` — the name
hostile/regressions/<target>/ uses too.

>>> from hostile.property import Violation
>>> try:
...     try:
...         {}["k"]
...     except KeyError as e:
...         raise Violation("KeyError: 'k'") from e
... except Violation as v:
...     print(signature(v))
KeyError at <doctest hostile.findings[1]>:3 in <module>
>>> name_of(b"a")
'86f7e437faa5'
"""
from __future__ import annotations

import hashlib
import os
import traceback
from typing import Dict, List, Optional

#: how the fuzzing child tells the campaign of a finding: this, then the finding as JSON
FINDING_PREFIX = "hostile-finding "
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def name_of(data: bytes) -> str:
    """An input's file name: the first 12 hex digits of the sha1 of its bytes."""
    return hashlib.sha1(data).hexdigest()[:12]


def head(data: bytes, n: int = 40) -> str:
    """The first n bytes of an input, as a Python bytes literal (… when cut)."""
    return repr(data[:n]) + ("…" if len(data) > n else "")


def _where(exc: BaseException) -> str:
    """The innermost frame of the project's code in the exception's traceback (the
    innermost frame of all when none is the project's), as `path:line in function`."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if os.path.abspath(f.filename).startswith(ROOT + os.sep)] or frames
    if not ours:
        return "?"
    f = ours[-1]
    path = os.path.abspath(f.filename)
    shown = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else os.path.basename(path)
    return "%s:%s in %s" % (shown.replace(os.sep, "/"), f.lineno, f.name)


def signature(exc: BaseException) -> str:
    """Which bug a Violation (or an exception a target let out) is: the exception behind it
    and where that was raised (the module's docstring)."""
    from .property import Violation

    message = str(exc)
    if not isinstance(exc, Violation):
        return "%s at %s" % (type(exc).__name__, _where(exc))
    if message.startswith("took more than"):
        return message
    cause = exc.__cause__
    return "%s at %s" % (message.split(":")[0], _where(cause if cause is not None else exc))


class Findings:
    """The shortest input of each signature met so far, saved in `directory`."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.shortest: Dict[str, bytes] = {}

    def add(self, sig: str, data: bytes) -> Optional[str]:
        """Keep `data` if it is the first or the shortest input of its signature; the path
        it is saved at, or None when an input kept already is as short."""
        kept = self.shortest.get(sig)
        if kept is not None and len(kept) <= len(data):
            return None
        self.shortest[sig] = data
        os.makedirs(self.directory, exist_ok=True)
        path = os.path.join(self.directory, name_of(data))
        with open(path, "wb") as f:
            f.write(data)
        return path

    def records(self) -> List[Dict[str, object]]:
        """The findings as results records' entries (hostile/results.py)."""
        return [record(sig, data) for sig, data in sorted(self.shortest.items())]


def record(sig: str, data: bytes) -> Dict[str, object]:
    """A finding in a results record: its signature, its input's name, size and bytes
    (hex, the first 512 bytes)."""
    return {"signature": sig, "input": name_of(data), "size": len(data), "hex": data[:512].hex()}
