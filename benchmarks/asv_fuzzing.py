"""asv: a fuzz campaign against llguidance (benchmarks/fuzzing.py) — seed 3, 4 batches of 25
examples (the same examples on any machine) — examples per second and each phase's share
of the campaign's time (strategy, refimpl, peer, comparison), measured once in
`setup_cache`; skipped without llguidance or hypothesis."""
from . import fuzzing

BATCHES = 4


class Fuzzing:
    params = [list(fuzzing.PHASES)]
    param_names = ["phase"]
    timeout = 600

    def setup_cache(self):
        from conformance.registry import get_engine

        try:
            import hypothesis  # noqa: F401
        except ImportError:
            return None
        if get_engine("llguidance").unavailable_reason() is not None:
            return None
        return fuzzing.measure("llguidance", seconds=None, seed=3, batches=BATCHES)

    def setup(self, cache, phase):
        if cache is None:  # asv skips a benchmark whose setup raises this
            raise NotImplementedError("llguidance (or hypothesis) is not installed")

    def track_examples_per_second(self, cache, phase):
        return cache["examples_per_second"]
    track_examples_per_second.unit = "examples/s"

    def track_share(self, cache, phase):
        return 100 * cache["share"][phase]
    track_share.unit = "%"
