"""Every input that found a bug is kept (hostile/regressions/<target>/<sha1, 12 hex>) and
replayed here through its target, on any interpreter (no atheris): the fixed bug stays
fixed — the entry point keeps the property (hostile/property.py) on it."""
import os

import pytest

from hostile.findings import name_of
from hostile.lookup import registry
from hostile.replay import REGRESSIONS, files, read_inputs

TARGETS = registry()
DIRECTORIES = sorted(d for d in os.listdir(REGRESSIONS) if not d.startswith(".")) if os.path.isdir(REGRESSIONS) else []
CASES = [(d, path) for d in DIRECTORIES if d in TARGETS for path in files(os.path.join(REGRESSIONS, d))]


def test_every_directory_names_a_target():
    """A directory of regressions whose target was renamed or removed would replay nothing."""
    unknown = [d for d in DIRECTORIES if d not in TARGETS]
    assert not unknown, "hostile/regressions/ has directories of no target: %s (the targets: %s)" % (
        unknown, sorted(TARGETS))


@pytest.mark.parametrize("target,path", CASES, ids=["%s/%s" % (t, os.path.basename(p)) for t, p in CASES])
def test_regression_keeps_the_property(target, path):
    [(name, data)] = read_inputs([path])
    assert name == name_of(data), "%s: a regression input is named by the sha1 of its bytes (%s)" % (path, name_of(data))
    TARGETS[target].run(data)  # a Violation fails the test with the broken property's message
