"""The fuzz targets, one module per kind of outside input.

A `Target` is a name, a function of arbitrary bytes that calls one entry point and keeps
the property (hostile/property.py: `check`), the seed inputs it starts from (taken from the
tests and the docs), and the packages whose coverage guides its fuzzing. `TARGETS` maps
each name to its target; the modules below each contribute their list.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Tuple


@dataclass(frozen=True)
class Target:
    #: the name `python -m hostile` and hostile/regressions/<name>/ use
    name: str
    #: the entry point, in the words of the docs (`Grammar.from_regex`, `conformance run --backend`)
    entry: str
    #: calls the entry point on one input; raises hostile.property.Violation when the property breaks
    run: Callable[[bytes], None]
    #: the seed corpus: inputs from the tests and the docs
    seeds: Callable[[], Iterable[bytes]]
    #: the packages atheris instruments for this target's coverage
    packages: Tuple[str, ...] = ("refimpl",)


def _collect() -> Dict[str, Target]:
    from . import commandline, grammars, protocol, schemas, vectors, vocabularies  # noqa: F401  (each lists TARGETS)
    found: Dict[str, Target] = {}
    for module in (grammars, schemas, vocabularies, vectors, protocol, commandline):
        for target in module.TARGETS:
            assert target.name not in found, target.name
            found[target.name] = target
    return found
