"""Toy fuzz targets for the driver's own tests (tests/hostile/): small, fast, and one with
a planted bug, so that the driver's handling of a finding is tested without waiting for a
real one."""
from __future__ import annotations

import os

from hostile.property import Violation, check
from hostile.targets import Target
from refimpl import Grammar


def regex(data: bytes) -> None:
    """Grammar.from_regex on the bytes as UTF-8 (errors replaced)."""
    check(lambda: Grammar.from_regex(data.decode("utf-8", "replace")))


def regex_seeds():
    return [b"[0-9]+", b"(ab|cd)*e?", b"\\d{2,4}-x"]


def planted(data: bytes) -> None:
    """Breaks the property on inputs holding b"!!": a KeyError, as a bug would (one seed
    does, so a run finds it however short)."""
    def call() -> int:
        if b"!!" in data:
            return {}[data]  # type: ignore[no-any-return]
        return len(data)
    check(call)


def planted_seeds():
    return [b"a", b"x!!yz"]


def aborts(data: bytes) -> None:
    """Kills its process on b"abort" (a seed): what libFuzzer itself stops, as a crash in C would."""
    if data == b"abort":
        os.abort()


def wrong(data: bytes) -> None:
    """Always a Violation of the target's own check (a wrong result)."""
    raise Violation("wrong result: always")


TARGETS = [
    Target("toy-regex", "Grammar.from_regex", regex, regex_seeds),
    Target("toy-planted", "a dict lookup", planted, planted_seeds, packages=("tests.hostile",)),
    Target("toy-abort", "os.abort", aborts, lambda: [b"abort", b"x"], packages=("tests.hostile",)),
    Target("toy-wrong", "a wrong result", wrong, lambda: [b"x"], packages=("tests.hostile",)),
]
