"""How many examples a property test runs: its count on CPython, times a scale.

PyPy runs the same properties with fewer examples (its JIT does not pay off on short
runs, and CI runs the suite on both); `HYPOTHESIS_PROFILE=fuzz` (or
`MASKREF_EXAMPLES_SCALE=<factor>`) turns the suite into a long campaign.
"""
import os
import platform

if os.environ.get("HYPOTHESIS_PROFILE") == "fuzz":
    _default = 20.0
elif platform.python_implementation() == "CPython":
    _default = 1.0
else:
    _default = 0.3
SCALE = float(os.environ.get("MASKREF_EXAMPLES_SCALE", _default))


def examples(n: int) -> int:
    """The number of examples for a test that runs n on CPython."""
    return max(5, int(n * SCALE))
