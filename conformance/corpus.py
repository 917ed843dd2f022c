"""A corpus of JSON schemas read from a repository: a checkout or a bare git directory
(HEAD), and refimpl's grammar for a schema within a time budget. SchemaStore's schemas
(tools/schemastore_vectors.py) and JSONSchemaBench's (conformance/maskbench.py) are read
this way.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from typing import Any, Callable, Dict, Iterator, Optional, Tuple, Type, TypeVar

from refimpl import Grammar, MaskrefError

T = TypeVar("T")


class Corpus:
    """The files of a repository: a checkout (when `folder`, a path inside it, is a
    directory there) or a bare git directory, read at HEAD."""

    def __init__(self, root: str, folder: str) -> None:
        self.root = root
        self.git = not os.path.isdir(os.path.join(root, folder))

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.root] + list(args), check=True,
                              capture_output=True).stdout.decode("utf-8", "replace")

    def commit(self) -> str:
        if self.git:
            return self._git("rev-parse", "HEAD").strip()
        try:
            return subprocess.run(["git", "-C", self.root, "rev-parse", "HEAD"], check=True,
                                  capture_output=True).stdout.decode().strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"

    def files(self, folder: str) -> Dict[str, int]:
        """The files under `folder` (paths relative to the corpus root) and their sizes."""
        if self.git:
            out = {}
            for line in self._git("ls-tree", "-r", "-l", "HEAD", folder).splitlines():
                meta, path = line.split("\t", 1)
                size = meta.split()[3]
                if size.isdigit():  # "BAD": the blob is missing from the snapshot
                    out[path] = int(size)
            return out
        found = {}
        for base, _, names in os.walk(os.path.join(self.root, folder)):
            for n in names:
                full = os.path.join(base, n)
                found[os.path.relpath(full, self.root)] = os.path.getsize(full)
        return found

    def read(self, path: str) -> Optional[str]:
        """The file's text, or None where the snapshot lacks it (large files may be absent)."""
        try:
            if self.git:
                return self._git("show", "HEAD:" + path)
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                return f.read()
        except (OSError, subprocess.CalledProcessError):
            return None


class Slow(BaseException):
    """More than the time budget (raised by `within`; a BaseException, as KeyboardInterrupt
    is, so that no `except Exception` on the way swallows it)."""


@contextlib.contextmanager
def deadline(seconds: float, error: Type[BaseException] = Slow) -> Iterator[None]:
    """Interrupt the block with `error` after `seconds` of wall time (SIGALRM: the main
    thread of a Unix process; a C call is interrupted only when it returns to Python).

    A SIGALRM that rings before the time is up is a stale one and is ignored: an earlier
    deadline's alarm can ring just as that deadline ends, and PyPy runs a signal's Python
    handler later, when the next deadline's handler is in place."""
    start = time.monotonic()

    def ring(signum: int, frame: Any) -> None:
        if time.monotonic() - start >= seconds * 0.999:
            raise error()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def within(seconds: float, work: Callable[..., T], *args: Any) -> T:
    """work(*args), or Slow after `seconds` (`deadline`)."""
    with deadline(seconds):
        return work(*args)


def compile_within(schema: Any, seconds: int) -> Tuple[Optional[Grammar], str]:
    """refimpl's grammar for the schema, or None and why not (an error it raises, or more
    than `seconds` to compile)."""
    try:
        return within(seconds, Grammar.from_json_schema, schema), ""
    except Slow:
        return None, "compiles in more than %d s" % seconds
    except (MaskrefError, RecursionError, ValueError) as e:
        return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:100] if str(e) else "")
