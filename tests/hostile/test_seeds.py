"""Each target's seed inputs (from the tests and the docs) keep the property: they are the
fuzzer's starting corpus, and valid inputs of the entry points, so each gives a correct
result or a positioned typed error. A target with more than SAMPLE seeds is checked on a
deterministic sample of SAMPLE (hostile.replay.seed_inputs)."""
import pytest

from hostile.lookup import registry
from hostile.replay import seed_inputs

TARGETS = registry()
#: the seeds checked per target, at most
SAMPLE = 30


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seeds_keep_the_property(name):
    target = TARGETS[name]
    seeds = seed_inputs(target, at_most=SAMPLE)
    assert seeds, "%s has no seeds" % name
    for _, data in seeds:
        target.run(data)
