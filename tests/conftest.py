"""Hypothesis profiles: "ci" (the default) is deterministic and quick; "fuzz" is random,
with 20x the examples (tests/support/budget.py), for long runs by hand:
HYPOTHESIS_PROFILE=fuzz python -m pytest tests/...

Tests that need an optional library (torch, transformers, a peer) skip where it is absent;
MASKREF_REQUIRE_MODULES=torch,transformers,... makes the absence of any of them an error of
the whole run instead (.ci/run installs them on CPython, so their tests must run there).
"""
import importlib
import os

import pytest
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


def pytest_configure(config: pytest.Config) -> None:
    required = [m for m in os.environ.get("MASKREF_REQUIRE_MODULES", "").split(",") if m]
    for module in required:
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise pytest.UsageError("MASKREF_REQUIRE_MODULES names %s, which cannot be imported: %s" % (module, e)) from None


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory):
    """The documentation site, built once per session (or CI's, MASKREF_SITE): tests/support/site.py."""
    from tests.support.site import built_site as build

    return build(tmp_path_factory)
