"""Each target's seed inputs (from the tests and the docs) keep the property: they are the
fuzzer's starting corpus, and valid inputs of the entry points, so each gives a correct
result or a positioned typed error. A target with more than SAMPLE seeds is checked on a
deterministic sample of SAMPLE (random.Random(0), by the seeds' names)."""
import random

import pytest

from hostile.lookup import registry
from hostile.replay import seed_inputs

TARGETS = registry()
#: the seeds checked per target, at most
SAMPLE = 60


def sample(target):
    seeds = seed_inputs(target)
    if len(seeds) <= SAMPLE:
        return seeds
    return random.Random(0).sample(sorted(seeds), SAMPLE)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_seeds_keep_the_property(name):
    target = TARGETS[name]
    seeds = sample(target)
    assert seeds, "%s has no seeds" % name
    for _, data in seeds:
        target.run(data)
