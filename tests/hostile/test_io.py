"""The outside input that is no grammar — vocabulary files, vector and results files, the
worker protocol from both sides, the command lines — on the inputs that found bugs
(hostile/regressions/<target>/) and on each target's seeds: the property holds
(hostile/property.py; docs/hostile.md)."""
from __future__ import annotations

import os

import pytest

from hostile.targets import commandline, protocol, vectors, vocabularies

TARGETS = {t.name: t for m in (vocabularies, vectors, protocol, commandline) for t in m.TARGETS}
REGRESSIONS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "hostile", "regressions")


def _regressions():
    for name in sorted(TARGETS):
        folder = os.path.join(REGRESSIONS, name)
        for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            yield pytest.param(name, os.path.join(folder, entry), id="%s/%s" % (name, entry))


@pytest.mark.parametrize("name, path", list(_regressions()))
def test_regression(name, path):
    with open(path, "rb") as f:
        TARGETS[name].run(f.read())


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seeds(name):
    """Every seed keeps the property: the seeds are inputs the entry point reads."""
    seeds = list(TARGETS[name].seeds())
    assert seeds
    for data in seeds:
        TARGETS[name].run(data)

