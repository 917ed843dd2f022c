"""Hypothesis profiles: "ci" (the default) is deterministic and quick; "fuzz" is random,
with 20x the examples (tests/support/budget.py), for long runs by hand:
HYPOTHESIS_PROFILE=fuzz python -m pytest tests/...
"""
import os

from hypothesis import HealthCheck, settings

from tests.support.budget import examples

settings.register_profile(
    "ci",
    max_examples=examples(100),
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz",
    max_examples=examples(100),
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
